import JSON
import Testing
import Uploads

@testable import App

/// The pure rules of reading the Uppy routes' requests: part numbers, `partNumbers`, completion bodies,
/// and Companion's error bodies (S3's part rules and slugs are Uploads' `PartRulesTests`, `UploadRulesTests`).
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

    private func parts(_ json: String) throws -> Result<[PartRules.Part], CompanionError> {
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
        #expect(
            MultipartService.companionFields(fields, bucket: "uploads").map(\.name) == [
                "success_action_status", "content-type", "bucket", "X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date",
                "key", "Policy", "X-Amz-Signature",
            ])
        // Companion's letter case (issue 19, point 17), with a session token too.
        #expect(MultipartService.companionName("x-amz-security-token") == "X-Amz-Security-Token")
        #expect(MultipartService.companionName("success_action_status") == "success_action_status")
    }

    @Test func errorBodies() throws {
        let r = CompanionError.upload(.noSuchUpload).response
        #expect(r.status == 404)
        let j = try JSONValue(parsing: r.body)
        #expect(j["code"]?.stringValue == "NO_SUCH_UPLOAD")
        #expect(j["error"]?.stringValue?.contains("start again") == true)
        // Uppy shows only `message` (issue 19, point 14): the same text as `error`.
        #expect(j["message"] == j["error"])
        #expect(String(decoding: r.body, as: UTF8.self).hasPrefix(#"{"error":"#))
        let backlogged = CompanionError.upload(.intentsBacklogged).response
        #expect(backlogged.status == 503)
        #expect(backlogged.headers.contains { $0.name == "Retry-After" && $0.value == "5" })
        #expect(backlogged.headers.filter { $0.name == "Content-Type" }.count == 1)
        #expect(try JSONValue(parsing: backlogged.body)["code"]?.stringValue == "STORE_UNAVAILABLE")
        // The gate's refusals keep the house's shape.
        let limited = CompanionError.refused(.rateLimited(retryAfterSeconds: 3)).response
        #expect(limited.status == 429)
        #expect(limited.headers.contains { $0.name == "Retry-After" && $0.value == "3" })
        #expect(try JSONValue(parsing: limited.body)["error"] == nil)
        #expect(CompanionError.request(.validation(["type": "unknown type"])).status == 400)
        #expect(
            CompanionError.upload(.rejected([.unknownType("X", known: ["IMAGE", "VIDEO"])])).parts.message
                == #"s3: unknown upload type "X"; the types are IMAGE, VIDEO"#)
        #expect(CompanionError.upload(.storage(.multipart(.noSuchUpload))).code == "NO_SUCH_UPLOAD")
        #expect(CompanionError.upload(.storage(.multipart(.invalidPart))).status == 400)
        #expect(CompanionError.upload(.storage(.timeout("t"))).status == 504)
        #expect(CompanionError.upload(.partTooSmall(partNumber: 3)).code == "ENTITY_TOO_SMALL")
    }
}
