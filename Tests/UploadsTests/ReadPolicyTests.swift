import Records
import TestSupport
import Testing
import Uploads

/// `ReadPolicy`: the type, disposition and cache rule signed into a read URL, and the file name offered,
/// held to what Python's email package reads from the header.
@Suite("Read URL policy")
struct ReadPolicyTests {
    /// A record of `contentType` at `key` with `metadata`.
    static func record(_ contentType: String, key: String = "profile/u1/origin/a.jpg", metadata: String = "{}")
        -> ImageRecord
    {
        ImageRecord(
            id: "7d444840-9dc0-11d1-b245-5ffdce74fad2", ownerId: "u1", imageKey: key, objectKey: key,
            type: "PROFILE", contentType: contentType, size: 10, etag: "\"e\"", metadataJSON: metadata,
            createdAtMs: 0)
    }

    @Test("inline only for the raster image types; anything else, or asked, is attachment")
    func dispositions() {
        for type in ["image/jpeg", "image/png", "image/gif", "image/webp", "image/heic", "image/heif", "image/avif"] {
            #expect(ReadPolicy(record: Self.record(type)).disposition == .inline, "\(type)")
            #expect(ReadPolicy(record: Self.record(type), requested: .attachment).disposition == .attachment)
            #expect(ReadPolicy(record: Self.record(type), requested: .inline).disposition == .inline)
        }
        #expect(ReadPolicy.allowsInline("IMAGE/JPEG; charset=binary"))
        #expect(ReadPolicy.allowsInline(" image/png "))
        for type in [
            "text/html", "image/svg+xml", "application/pdf", "application/octet-stream", "image/jpeg2", "image",
            "", "text/html; image/jpeg", "video/mp4", "image/x-icon",
        ] {
            #expect(!ReadPolicy.allowsInline(type), "\(type)")
            // Asking inline for such a type never gets it (the route refuses the request first).
            #expect(ReadPolicy(record: Self.record(type), requested: .inline).disposition == .attachment, "\(type)")
            #expect(ReadPolicy(record: Self.record(type)).disposition == .attachment, "\(type)")
        }
    }

    @Test("the stored content type is served as is unless it cannot be a header value")
    func contentTypes() {
        #expect(ReadPolicy(record: Self.record("text/html")).contentType == "text/html")
        #expect(
            ReadPolicy(record: Self.record("image/JPEG; charset=binary")).contentType == "image/JPEG; charset=binary")
        for bad in [
            "", "text/html\r\nX-Evil: 1", "image/jpeg\u{0}", "bild/j\u{e4}pg", String(repeating: "a", count: 256),
        ] {
            #expect(ReadPolicy(record: Self.record(bad)).contentType == "application/octet-stream", "\(bad)")
        }
    }

    /// (metadata, key, the name offered).
    static let names: [(String, String, String)] = [
        ("{}", "profile/u1/origin/a_1.jpg", "a_1.jpg"),
        (#"{"filename":"cat.png"}"#, "k/x.png", "cat.png"),
        (#"{"filename":"../../etc/passwd"}"#, "k/x.png", "passwd"),
        (#"{"filename":"..\\..\\boot.ini"}"#, "k/x.png", "boot.ini"),
        (#"{"filename":"a\"b;c%d.txt"}"#, "k/x", "a_b_c_d.txt"),
        (#"{"filename":"line\r\nX-Evil: 1.html"}"#, "k/x", "lineX-Evil: 1.html"),
        (#"{"filename":"\u0000\u0007tab\tbell.txt"}"#, "k/x", "tabbell.txt"),
        (#"{"filename":"gpj\u202e.exe"}"#, "k/x", "gpj.exe"),
        (#"{"filename":"사진 1.jpg"}"#, "k/x", "사진 1.jpg"),
        (#"{"filename":" .hidden. "}"#, "k/x", "hidden"),
        (#"{"filename":".."}"#, "k/y.jpg", "y.jpg"),
        (#"{"filename":"dir/"}"#, "k/y.jpg", "y.jpg"),
        (#"{"filename":42}"#, "k/y.jpg", "y.jpg"),
        (#"{"file\u006eame":"escaped.gif"}"#, "k/y.jpg", "escaped.gif"),
        (#"{"other":{"filename":"nested.gif"}}"#, "k/y.jpg", "y.jpg"),
        ("not json but filename", "k/y.jpg", "y.jpg"),
        ("{}", "..", "download"),
    ]

    @Test("the file name: the metadata's, else the key's last segment, sanitized", arguments: 0..<names.count)
    func filenames(_ index: Int) {
        let (metadata, key, expected) = Self.names[index]
        #expect(ReadPolicy.filename(metadataJSON: metadata, objectKey: key) == expected)
    }

    @Test("the metadata is parsed only when it can name a file")
    func scansBeforeParsing() {
        for (text, may) in [
            ("{}", false), (#"{"w":640,"h":480}"#, false), (#"{"filename":"a"}"#, true), (#"{"x":"filenam"}"#, false),
            (#"{"file\u006eame":"a"}"#, true), (#"{"a":"\\"}"#, false), ("filename", true), ("f", false), ("", false),
        ] {
            #expect(ReadPolicy.mayHoldFilename(text) == may, "\(text)")
        }
    }

    @Test("a long name is cut at a character boundary within 200 bytes")
    func longNames() {
        let name = ReadPolicy.sanitizedName(String(repeating: "가", count: 100))
        #expect(name.utf8.count <= ReadPolicy.maxFilenameBytes)
        #expect(name == String(repeating: "가", count: 66))
    }

    @Test("the header values: ASCII names plain, others with RFC 5987's form after the fallback")
    func headerValues() {
        let image = ReadPolicy(record: Self.record("image/png", key: "k/a b.png"))
        #expect(image.contentDisposition == #"inline; filename="a b.png""#)
        let html = ReadPolicy(record: Self.record("text/html", key: "k/x", metadata: #"{"filename":"사진.html"}"#))
        #expect(html.contentDisposition == #"attachment; filename="__.html"; filename*=UTF-8''%EC%82%AC%EC%A7%84.html"#)
        #expect(ReadPolicy.cacheControl(lifeSeconds: 7200) == "private, max-age=7200, immutable")
        #expect(
            image.query(lifeSeconds: 60).map { "\($0.name)=\($0.value)" } == [
                "response-cache-control=private, max-age=60, immutable",
                #"response-content-disposition=inline; filename="a b.png""#, "response-content-type=image/png",
            ])
    }

    @Test("Python's email package reads the sanitized name from every hostile one, and nothing more")
    func pythonReadsTheSafeName() throws {
        let hostile = [
            #"{"filename":"../\"evil\";\r\nname 사진.html"}"#,
            #"{"filename":"a\";filename=\"b.exe"}"#,
            #"{"filename":"x'; filename*=UTF-8''evil.exe"}"#,
            #"{"filename":"%22%0D%0A.png"}"#,
            #"{"filename":"plain.jpg"}"#,
        ]
        let policies = hostile.enumerated().map { index, metadata in
            ReadPolicy(record: Self.record(index % 2 == 0 ? "text/html" : "image/png", metadata: metadata))
        }
        let readings = try ContentDispositionReading.read(policies.map(\.contentDisposition))
        try #require(readings.count == policies.count)
        for (policy, reading) in zip(policies, readings) {
            let value = policy.contentDisposition
            #expect(!value.unicodeScalars.contains { $0 == "\r" || $0 == "\n" || $0 == "\\" || $0.value < 0x20 })
            #expect(reading.disposition == policy.disposition.rawValue, "\(value)")
            let fallback = String(policy.filename.unicodeScalars.map { $0.isASCII ? Character($0) : "_" })
            #expect(reading.filename == fallback, "\(value)")
            var expected = [["filename", fallback]]
            if fallback != policy.filename { expected.append(["filename", policy.filename]) }
            #expect(reading.params == expected, "\(value)")
            for name in [policy.filename, fallback] {
                #expect(!name.unicodeScalars.contains { "\"\\/;\r\n".unicodeScalars.contains($0) }, "\(name)")
            }
        }
        #expect(policies[0].filename == "_evil__name 사진.html")
        #expect(policies[1].filename == "a__filename=_b.exe")
        #expect(policies[3].filename == "_22_0D_0A.png")
    }
}
