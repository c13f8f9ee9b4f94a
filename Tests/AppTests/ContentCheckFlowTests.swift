import AppTestSupport
import Crypto
import Foundation
import JSON
import SigV4
import TestSupport
import Testing

/// The content check end to end (docs/content-check.md): the application in process reads each upload's first
/// bytes from the real RGW at `POST /images`, records the detected type and size, and refuses (and
/// deletes) what is no image of an allowed format, on SQLite and on PostgreSQL.
@Suite("Content check: the record tells the truth about the bytes (RGW)", .serialized, .onDispatchThreads)
struct ContentCheckFlowTests {
    /// Every format the check knows, for `ANY`; `RAW` (client B's flow) and `RAWP` (client P's) have the
    /// check off on purpose (they must record without reading); `PROFILE` is the built-in one (JPEG and PNG, promoted to `origin/`).
    static let config = """
        {"types": {
          "ANY": {"contentTypes": ["image/jpeg", "image/png", "image/gif", "image/webp", "image/heic", "image/heif",
                                   "image/avif"], "keyTemplate": "any/{imageKey}", "maxBytes": 1048576},
          "RAW": {"contentTypes": ["image/jpeg"], "keyTemplate": "raw/{imageKey}", "maxBytes": 1048576,
                  "contentCheck": false},
          "RAWP": {"contentTypes": ["image/jpeg"], "extensions": ["jpg"], "keyTemplate": "rawp/{userId}/{uuid}.{ext}",
                   "maxBytes": 1048576, "contentCheck": false}}}
        """

    /// A server with `config` on `backend`; its own S3 calls go to `internalEndpoint` when given.
    static func start(_ backend: Backend, internalEndpoint: String? = nil) async throws -> (
        InProcessApp, TestEnvironment.S3
    ) {
        let s3 = try TestEnvironment.s3()
        let dir = Temporary.directory()
        try config.write(toFile: dir + "/config.json", atomically: true, encoding: .utf8)
        var extra = ["PRESIGN_RECORDS_URL": try await backend.recordsURL(dir: dir)]
        if let internalEndpoint {
            extra["PRESIGN_S3_ENDPOINT"] = internalEndpoint
            extra["PRESIGN_S3_PUBLIC_ENDPOINT"] = s3.endpoint
        }
        let (env, _) = TestEnvironment.serverEnvironment(s3: s3, extra: extra)
        return (try await InProcessApp(environment: env, arguments: ["--config", dir + "/config.json"]), s3)
    }

    /// Client B's flow for `type`: POST a URL signing `label` as the content type, PUT `bytes` with that
    /// label. Returns the image key.
    static func uploadB(
        _ server: some HTTPTarget, _ s3: TestEnvironment.S3, type: String, label: String = "image/jpeg", bytes: [UInt8]
    ) async throws -> String {
        let uuid = UUID().uuidString
        let issued = try await ClientBFlowTests.post(
            server, #"{"type":"\#(type)","contentType":"\#(label)","imageKey":"\#(uuid)"}"#)
        #expect(issued.status == 200, "\(issued.text)")
        let url = try #require(try JSONValue(parsing: issued.body)["signedUrl"]?.stringValue)
        let target = String(url[url.range(of: s3.endpoint)!.upperBound...])
        #expect(try await ClientPFlowTests.put(s3, target: target, contentType: label, body: bytes) == 200)
        return uuid.lowercased()
    }

    /// Client P's flow: `GET /v1/storage/presigned-url?type=&ext=`, the URL rebuilt as its app does, PUT
    /// as `image/jpeg` whatever the bytes. Returns the key (the image key of the confirmation).
    static func uploadP(_ server: some HTTPTarget, _ s3: TestEnvironment.S3, ext: String, bytes: [UInt8])
        async throws -> String
    {
        let r = try await server.exchange(
            "GET", "/v1/storage/presigned-url?type=PROFILE&ext=\(ext)", headers: "X-User-Id: 9\r\n")
        #expect(r.status == 200, "\(r.text)")
        let json = try JSONValue(parsing: r.body)
        let url = try #require(json["presignedUrl"]?.stringValue)
        let rebuilt = try #require(ClientPFlowTests.rebuildLikeClientP(url))
        #expect(
            try await ClientPFlowTests.put(
                s3, target: rebuilt.path + "?" + rebuilt.query, contentType: "image/jpeg", body: bytes) == 200)
        return try #require(json["key"]?.stringValue)
    }

    /// `POST /images` as user 9.
    static func confirm(_ server: some HTTPTarget, _ imageKey: String) async throws -> WireResponse {
        try await ImagesFlowTests.request(server, "POST", "/images", user: "9", body: #"{"imageKey":"\#(imageKey)"}"#)
    }

    /// The object under `key` as RGW serves it (status, headers, body), read with a GET the test signs.
    static func object(_ s3: TestEnvironment.S3, _ key: String) async throws -> WireResponse {
        try await s3.fetch(key: key)
    }

    /// The real encoders' files of ImageProbe's tests (Tests/ImageProbeTests/Fixtures): name, media type,
    /// width, height (the names end in `-WxH.ext`).
    static func fixtures() throws -> [(name: String, bytes: [UInt8], type: String, width: Int, height: Int)] {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../ImageProbeTests/Fixtures").standardized
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasSuffix(".md") }
        return try names.sorted().map { name in
            let stem = name.split(separator: ".")[0]
            let size = stem.split(separator: "-").last!.split(separator: "x").map { Int($0)! }
            let ext = name.split(separator: ".").last!
            let type = ext == "jpg" ? "image/jpeg" : "image/\(ext)"
            let bytes = [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
            return (name, bytes, type, size[0], size[1])
        }
    }

    @Test(
        "every format, labelled image/jpeg, is recorded with its own type and pixel size", arguments: Backend.allCases)
    func everyFormat(backend: Backend) async throws {
        let (server, s3) = try await Self.start(backend)
        defer { server.stop() }
        var cases = TestImages.Format.allCases.enumerated().map { index, format in
            let width = 17 + index
            return ("built \(format)", TestImages.image(format, width: width, height: 11), format.mimeType, width, 11)
        }
        cases += try Self.fixtures().map { ($0.name, $0.bytes, $0.type, $0.width, $0.height) }
        #expect(cases.count == 6 + 20)
        for (name, bytes, type, width, height) in cases {
            let key = try await Self.uploadB(server, s3, type: "ANY", bytes: bytes)
            let r = try await Self.confirm(server, key)
            #expect(r.status == 201, "\(name): \(r.text)")
            let record = try JSONValue(parsing: r.body)
            #expect(record["contentType"]?.stringValue == type, "\(name)")
            #expect(record["detectedType"]?.stringValue == type, "\(name)")
            #expect(record["width"]?.intValue == width, "\(name)")
            #expect(record["height"]?.intValue == height, "\(name)")
            #expect(record["size"]?.intValue == bytes.count, "\(name)")
            // Read back through the records route: the columns of schema version 3 hold them.
            let id = try #require(record["id"]?.stringValue)
            let stored = try JSONValue(
                parsing: await ImagesFlowTests.request(server, "GET", "/images/\(id)", user: "9").body)
            #expect(stored["detectedType"]?.stringValue == type, "\(name)")
            #expect(stored["width"]?.intValue == width && stored["height"]?.intValue == height, "\(name)")
        }
    }

    @Test("wrong labels: the record says what the bytes are, within what the type allows", arguments: Backend.allCases)
    func wrongLabels(backend: Backend) async throws {
        let (server, s3) = try await Self.start(backend)
        defer { server.stop() }
        // (type, label the upload was signed and stored with, bytes, what is recorded).
        let cases: [(String, String, [UInt8], String)] = [
            ("IMAGE", "image/jpeg", TestImages.png(width: 5, height: 4), "image/png"),
            ("IMAGE", "image/png", TestImages.jpeg(width: 5, height: 4), "image/jpeg"),
            ("IMAGE", "image/heic", TestImages.webp(width: 5, height: 4), "image/webp"),
            ("IMAGE", "image/webp", TestImages.image(.heic, width: 5, height: 4), "image/heic"),
            ("ANY", "image/png", TestImages.image(.avif, width: 5, height: 4), "image/avif"),
            ("ANY", "image/jpeg", TestImages.gif(width: 5, height: 4), "image/gif"),
        ]
        for (type, label, bytes, recorded) in cases {
            let key = try await Self.uploadB(server, s3, type: type, label: label, bytes: bytes)
            let r = try await Self.confirm(server, key)
            #expect(r.status == 201, "\(label) holding \(recorded): \(r.text)")
            let record = try JSONValue(parsing: r.body)
            #expect(record["contentType"]?.stringValue == recorded, "\(label) holding \(recorded)")
            #expect(record["width"]?.intValue == 5 && record["height"]?.intValue == 4)
        }
        // An image of a format the type does not allow (IMAGE: JPEG, PNG, HEIC, WebP) is refused and deleted.
        let gif = try await Self.uploadB(server, s3, type: "IMAGE", bytes: TestImages.gif(width: 5, height: 4))
        let refused = try await Self.confirm(server, gif)
        #expect(refused.status == 422)
        let body = try JSONValue(parsing: refused.body)
        #expect(body["code"]?.stringValue == "CONTENT_MISMATCH")
        #expect(
            body["message"]?.stringValue
                == "the object is a GIF image (image/gif); type IMAGE allows image/jpeg, image/png, image/heic, image/webp"
        )
        #expect(try await Self.object(s3, gif).status == 404)
    }

    @Test("client P's flow: a PNG PUT as image/jpeg is recorded and promoted as image/png", arguments: Backend.allCases)
    func clientPSendsPNGAsJPEG(backend: Backend) async throws {
        let (server, s3) = try await Self.start(backend)
        defer { server.stop() }
        let bytes = TestImages.png(width: 120, height: 80, tail: Array(UUID().uuidString.utf8))
        let key = try await Self.uploadP(server, s3, ext: "jpeg", bytes: bytes)
        // What RGW holds before confirmation: the label client P always sends.
        #expect(try await Self.object(s3, key).header("Content-Type") == "image/jpeg")
        let r = try await Self.confirm(server, key)
        #expect(r.status == 201, "\(r.text)")
        let record = try JSONValue(parsing: r.body)
        #expect(record["contentType"]?.stringValue == "image/png")
        #expect(record["detectedType"]?.stringValue == "image/png")
        #expect(record["width"]?.intValue == 120)
        #expect(record["height"]?.intValue == 80)
        // The permanent copy is stored under the true type, the temporary one is gone.
        let permanent = try #require(record["key"]?.stringValue)
        #expect(permanent.hasPrefix("profile/9/origin/"))
        let promoted = try await Self.object(s3, permanent)
        #expect(promoted.status == 200)
        #expect(promoted.header("Content-Type") == "image/png")
        #expect(promoted.body == bytes)
        #expect(try await Self.object(s3, key).status == 404)
        // A repeat answers the same record.
        let again = try await Self.confirm(server, key)
        #expect(again.status == 200)
        #expect(try JSONValue(parsing: again.body)["contentType"]?.stringValue == "image/png")
    }

    /// Client P's URL for `type` PUT as `curl -T photo.jpg URL` sends it: no `Content-Type` (or `label`
    /// when given). Returns the key.
    static func uploadUnlabelled(
        _ server: some HTTPTarget, _ s3: TestEnvironment.S3, type: String = "PROFILE", label: String? = nil,
        bytes: [UInt8]
    ) async throws -> String {
        let r = try await ClientPFlowTests.issue(server, query: "type=\(type)&ext=jpg", user: "9")
        #expect(r.status == 200, "\(r.text)")
        let json = try JSONValue(parsing: r.body)
        let url = try #require(json["presignedUrl"]?.stringValue)
        let target = String(url[url.range(of: s3.endpoint)!.upperBound...])
        let (host, port) = s3.hostPort
        var head = "PUT \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\n"
        if let label { head += "Content-Type: \(label)\r\n" }
        head += "Content-Length: \(bytes.count)\r\nConnection: close\r\n\r\n"
        #expect(try await SocketTarget(host: host, port: port).exchange(Array(head.utf8) + bytes).status == 200)
        return try #require(json["key"]?.stringValue)
    }

    @Test(
        "a generic stored type (curl -T: none sent; application/octet-stream) is judged by the bytes",
        arguments: Backend.allCases)
    func genericStoredTypeJudgedByBytes(backend: Backend) async throws {
        let (server, s3) = try await Self.start(backend)
        defer { server.stop() }
        let jpeg = TestImages.jpeg(width: 40, height: 30)
        let key = try await Self.uploadUnlabelled(server, s3, bytes: jpeg)
        // What storage makes of a PUT without Content-Type.
        #expect(try await Self.object(s3, key).header("Content-Type") == "binary/octet-stream")
        let r = try await Self.confirm(server, key)
        #expect(r.status == 201, "\(r.text)")
        let record = try JSONValue(parsing: r.body)
        #expect(record["contentType"]?.stringValue == "image/jpeg")
        #expect(record["detectedType"]?.stringValue == "image/jpeg")
        #expect(record["width"]?.intValue == 40)
        let promoted = try await Self.object(s3, try #require(record["key"]?.stringValue))
        #expect(promoted.header("Content-Type") == "image/jpeg", "the copy takes the detected type")
        #expect(promoted.body == jpeg)

        let png = TestImages.png(width: 9, height: 7, tail: Array(UUID().uuidString.utf8))
        let labelled = try await Self.uploadUnlabelled(server, s3, label: "application/octet-stream", bytes: png)
        let second = try await Self.confirm(server, labelled)
        #expect(second.status == 201, "\(second.text)")
        #expect(try JSONValue(parsing: second.body)["contentType"]?.stringValue == "image/png")

        // Bytes that are no image are still refused, as CONTENT_MISMATCH, and deleted.
        let html = try await Self.uploadUnlabelled(server, s3, bytes: TestImages.html)
        let refused = try await Self.confirm(server, html)
        #expect(refused.status == 422, "\(refused.text)")
        #expect(try JSONValue(parsing: refused.body)["code"]?.stringValue == "CONTENT_MISMATCH")
        #expect(try await Self.object(s3, html).status == 404)

        // Without the content check nothing is known of the bytes: the generic type stays refused.
        let raw = try await Self.uploadUnlabelled(server, s3, type: "RAWP", bytes: jpeg)
        let unchecked = try await Self.confirm(server, raw)
        #expect(unchecked.status == 422, "\(unchecked.text)")
        #expect(try JSONValue(parsing: unchecked.body)["code"]?.stringValue == "CONTENT_TYPE_NOT_ALLOWED")
    }

    /// Objects the check refuses: (name, bytes, the message of the 422).
    static let refusals: [(String, [UInt8], String)] = [
        ("HTML", TestImages.html, "the object is an HTML document, not an image"),
        ("SVG", TestImages.svg, "the object is an SVG document, which is not an allowed image format"),
        ("truncated PNG", TestImages.truncatedPNG(), "the object ends inside its PNG header"),
        ("empty", [], "the object is empty"),
        (
            "JPEG signature then HTML", [0xFF, 0xD8, 0xFF] + TestImages.html,
            "the object's JPEG header is malformed: unexpected marker 0x3C"
        ),
        ("text", Array("just some text, no image at all\n".utf8), "the object is text, not an image"),
    ]

    @Test(
        "HTML, SVG, truncated and hostile headers labelled image/jpeg: 422 CONTENT_MISMATCH, deleted, not recorded",
        arguments: Backend.allCases)
    func refusesWhatIsNoImage(backend: Backend) async throws {
        let (server, s3) = try await Self.start(backend)
        defer { server.stop() }
        for (name, bytes, message) in Self.refusals {
            // Client P's flow (promotion to origin/) and client B's (a flat key).
            let pKey = try await Self.uploadP(server, s3, ext: "jpg", bytes: bytes)
            let bKey = try await Self.uploadB(server, s3, type: "IMAGE", bytes: bytes)
            for key in [pKey, bKey] {
                let r = try await Self.confirm(server, key)
                #expect(r.status == 422, "\(name): \(r.text)")
                let body = try JSONValue(parsing: r.body)
                #expect(body["code"]?.stringValue == "CONTENT_MISMATCH", "\(name)")
                #expect(body["message"]?.stringValue == message, "\(name): \(r.text)")
                #expect(try await Self.object(s3, key).status == 404, "\(name): the refused object is deleted")
                // Nothing was recorded or promoted: confirming again finds nothing to confirm.
                #expect(try await Self.confirm(server, key).status == 404, "\(name)")
            }
            let permanent = pKey.replacingOccurrences(of: "delete/profile/9/", with: "profile/9/origin/")
            #expect(try await Self.object(s3, permanent).status == 404, "\(name): nothing was promoted")
        }
        let list = try JSONValue(parsing: await ImagesFlowTests.request(server, "GET", "/images", user: "9").body)
        #expect(list["items"]?.arrayValue?.isEmpty == true)
        let metrics = try await ImagesFlowTests.request(server, "GET", "/metrics", user: "9").text
        #expect(metrics.contains("presignd_content_refused_total \(2 * Self.refusals.count)\n"), "\(metrics)")
        // The log names the reason by its code, never the bytes.
        #expect(server.log.text.contains(#""reason":"html""#))
        #expect(server.log.text.contains(#""reason":"svg""#))
        #expect(!server.log.text.contains("alert("))
    }

    @Test("a type with the check off records without reading; a checked type reads once", arguments: Backend.allCases)
    func checkOffRecordsWithoutReading(backend: Backend) async throws {
        let s3 = try TestEnvironment.s3()
        let proxy = try FaultProxy(inFrontOf: s3)
        defer { proxy.close() }
        let (server, _) = try await Self.start(backend, internalEndpoint: "http://127.0.0.1:\(proxy.port)")
        defer { server.stop() }
        // Any GET of the server's own fails: a confirmation that reads cannot succeed.
        proxy.setRules([.init(.method("GET"), .status(500, code: "InternalError"))])
        // RAW's check is off, so even HTML labelled image/jpeg is recorded as the label says.
        let raw = try await Self.uploadB(server, s3, type: "RAW", bytes: TestImages.html)
        let r = try await Self.confirm(server, raw)
        #expect(r.status == 201, "\(r.text)")
        let record = try JSONValue(parsing: r.body)
        #expect(record["contentType"]?.stringValue == "image/jpeg")
        #expect(record["detectedType"]?.isNull == true)
        #expect(record["width"]?.isNull == true)
        #expect(record["height"]?.isNull == true)
        #expect(record["size"]?.intValue == TestImages.html.count)
        #expect(proxy.faultCount == 0, "no GET reached storage for a type with the check off")
        // A checked type's confirmation is one ranged GET (the HEAD's stand-in) and its one retry.
        let checked = try await Self.uploadB(server, s3, type: "ANY", bytes: TestImages.jpeg(width: 2, height: 2))
        #expect(try await Self.confirm(server, checked).status == 502)
        #expect(proxy.faultCount == 3, "a ranged GET and the policy's two retries")
        proxy.setRules([])
        #expect(try await Self.confirm(server, checked).status == 201)
    }
}
