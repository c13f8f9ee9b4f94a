import JSON
import Testing

@testable import App

/// The pure rules of the Uppy routes: part numbers, `partNumbers`, completion bodies, sizes, slugs.
@Suite struct MultipartRulesTests {
    @Test(
        arguments: [
            ("1", 1), ("10000", 10_000), ("42", 42), ("0", nil), ("10001", nil), ("01", nil), ("+1", nil), ("-1", nil),
            (" 1", nil), ("1 ", nil), ("1.0", nil), ("", nil), ("abc", nil), ("99999999999999999999", nil), ("１", nil),
        ] as [(String, Int?)])
    func partNumber(_ text: String, _ expected: Int?) {
        #expect(MultipartRules.partNumber(Substring(text)) == expected, "\(text)")
    }

    @Test func partNumberLists() {
        #expect(MultipartRules.partNumberList("1,2,3") == [1, 2, 3])
        #expect(MultipartRules.partNumberList("7,3") == [7, 3])
        for bad in ["", ",", "1,", ",1", "1,,2", "1,1", "1, 2", "0", "10001", "a", "1;2"] {
            #expect(MultipartRules.partNumberList(bad) == nil, "\(bad)")
        }
        let most = (1...MultipartRules.maxBatch).map(String.init).joined(separator: ",")
        #expect(MultipartRules.partNumberList(most)?.count == MultipartRules.maxBatch)
        #expect(MultipartRules.partNumberList(most + ",1001") == nil)
    }

    private func parts(_ json: String) throws -> Result<[MultipartRules.Part], CompanionError> {
        MultipartRules.completionParts(try #require(try JSONValue(parsing: json).objectValue))
    }

    @Test func completionBodies() throws {
        let ok = try parts(#"{"parts":[{"PartNumber":3,"ETag":"\"c\""},{"PartNumber":1,"ETag":"a"}]}"#)
        #expect((try? ok.get())?.map(\.number) == [1, 3])
        #expect((try? ok.get())?.map(\.etag) == ["a", "\"c\""])
        for bad in [
            #"{}"#, #"{"parts":{}}"#, #"{"parts":[]}"#, #"{"parts":[1]}"#, #"{"parts":[{"PartNumber":1}]}"#,
            #"{"parts":[{"ETag":"a"}]}"#, #"{"parts":[{"PartNumber":"1","ETag":"a"}]}"#,
            #"{"parts":[{"PartNumber":1.5,"ETag":"a"}]}"#, #"{"parts":[{"PartNumber":0,"ETag":"a"}]}"#,
            #"{"parts":[{"PartNumber":10001,"ETag":"a"}]}"#, #"{"parts":[{"PartNumber":1,"ETag":""}]}"#,
            #"{"parts":[{"PartNumber":1,"ETag":"a\nb"}]}"#,
            #"{"parts":[{"PartNumber":2,"ETag":"a"},{"PartNumber":2,"ETag":"b"}]}"#,
        ] {
            guard case .failure(let e) = try parts(bad) else {
                Issue.record("accepted \(bad)")
                continue
            }
            #expect(e.status == 400, "\(bad)")
        }
    }

    @Test func completionChecks() {
        let mib = Int64(1024 * 1024)
        let listed: [Int: (etag: String, size: Int64)] = [
            1: ("\"e1\"", 5 * mib), 2: ("\"e2\"", 5 * mib), 3: ("\"e3\"", 1), 4: ("\"e4\"", 1),
        ]
        func check(_ given: [(Int, String)], max: Int64 = 100 * mib) -> String {
            switch MultipartRules.checkCompletion(
                given: given.map { MultipartRules.Part(number: $0.0, etag: $0.1) }, listed: listed, maxBytes: max)
            {
            case .success(let ok): return "ok \(ok.total) " + ok.parts.map(\.etag).joined(separator: ",")
            case .failure(let e): return e.code
            }
        }
        // Quotes or none, the store's ETags are sent back.
        #expect(check([(1, "e1"), (2, "\"e2\""), (3, "e3")]) == "ok \(10 * mib + 1) \"e1\",\"e2\",\"e3\"")
        #expect(check([(1, "e1"), (2, "wrong")]) == "INVALID_PART")
        #expect(check([(1, "e1"), (9, "e9")]) == "INVALID_PART")
        #expect(check([(1, "e1"), (3, "e3"), (4, "e4")]) == "ENTITY_TOO_SMALL")
        #expect(check([(3, "e3")]) == "ok 1 \"e3\"")
        #expect(check([(1, "e1"), (2, "e2")], max: 10 * mib - 1) == "ENTITY_TOO_LARGE")
        #expect(check([(1, "e1"), (2, "e2")], max: 10 * mib) == "ok \(10 * mib) \"e1\",\"e2\"")
        let huge: [Int: (etag: String, size: Int64)] = [1: ("x", MultipartRules.maxPartBytes + 1)]
        #expect(
            MultipartRules.checkCompletion(
                given: [.init(number: 1, etag: "x")], listed: huge, maxBytes: .max
            ).failureCode == "ENTITY_TOO_LARGE")
    }

    @Test(arguments: [
        ("Holiday Video.mp4", "holiday-video"), ("../../etc/passwd", "passwd"), ("a/b/c.jpg", "c"),
        ("C:\\Users\\me\\photo.JPG", "photo"), ("..", "file"), ("", "file"), (".bashrc", "bashrc"),
        ("été à Paris.png", "t-paris"), ("a\u{0}b\u{7}c.jpg", "a-b-c"), ("__x__.tar.gz", "__x__-tar"),
        ("---", "file"), ("x" + String(repeating: "y", count: 200), "x" + String(repeating: "y", count: 63)),
    ])
    func slug(_ name: String, _ expected: String) {
        let s = MultipartRules.slug(name)
        #expect(s == expected, "\(name)")
        #expect(s.utf8.count <= MultipartRules.maxSlugBytes)
        #expect(!s.contains("/") && !s.contains("..") && !s.hasPrefix("-") && !s.hasSuffix("-"))
    }

    @Test func companionFieldOrder() {
        let fields = [
            ("key", "k"), ("Content-Type", "image/jpeg"), ("success_action_status", "201"),
            ("x-amz-algorithm", "a"), ("x-amz-credential", "c"), ("x-amz-date", "d"), ("policy", "p"),
            ("x-amz-signature", "s"),
        ].map { (name: $0.0, value: $0.1) }
        #expect(
            MultipartService.companionOrder(fields).map(\.name) == [
                "success_action_status", "Content-Type", "x-amz-algorithm", "x-amz-credential", "x-amz-date", "key",
                "policy", "x-amz-signature",
            ])
    }

    @Test func errorBodies() throws {
        let r = CompanionError.noSuchUpload.response
        #expect(r.status == 404)
        let j = try JSONValue(parsing: r.body)
        #expect(j["code"]?.stringValue == "NO_SUCH_UPLOAD")
        #expect(j["error"]?.stringValue?.contains("start again") == true)
        let limited = CompanionError(APIError.rateLimited(retryAfterSeconds: 3)).response
        #expect(limited.status == 429)
        #expect(limited.headers.contains { $0.name == "Retry-After" && $0.value == "3" })
        #expect(limited.headers.filter { $0.name == "Content-Type" }.count == 1)
        #expect(CompanionError(APIError.validation(["type": "unknown type"])).status == 400)
        #expect(MultipartService.storageRefusal(.multipart(.noSuchUpload)).code == "NO_SUCH_UPLOAD")
        #expect(MultipartService.storageRefusal(.multipart(.invalidPart)).status == 400)
        #expect(MultipartService.storageRefusal(.timeout("t")).status == 504)
    }
}

extension Result where Failure == CompanionError {
    fileprivate var failureCode: String? {
        if case .failure(let e) = self { return e.code }
        return nil
    }
}
