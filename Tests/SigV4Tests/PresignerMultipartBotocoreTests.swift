import Crypto
import Foundation
import TestSupport
import Testing

@testable import SigV4

/// UploadPart URLs and browser form uploads (POST policies) cross-checked against botocore:
/// seeded random cases are signed here and by `scripts/boto3_multipart_crosscheck.py`
/// (`generate_presigned_url('upload_part', ...)` and `generate_presigned_post`, clock fixed per
/// case). Without python3 and boto3 the test fails; it never passes silently.
struct PresignerMultipartBotocoreTests {
    /// One case as the script reads it.
    struct Case: Codable {
        var kind: String
        var bucket: String
        var key: String
        var region: String
        var endpoint: String
        var addressing: String
        var expires: Int
        var epochSeconds: Int64
        var sessionToken: String?
        var uploadId: String?
        var partNumber: Int?
        var contentType: String?
        var lengthMin: Int64?
        var lengthMax: Int64?
        var successActionStatus: Int?
    }

    /// The script's input.
    struct Input: Codable {
        var accessKeyId: String
        var secretAccessKey: String
        var cases: [Case]
    }

    /// The script's output.
    struct Output: Codable {
        struct Result: Codable {
            var url: String
            var fields: [String: String]?
        }
        var botocore: String
        var results: [Result]
    }

    static let accessKeyId = "AKIAIOSFODNN7EXAMPLE"
    static let secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"

    /// Upload IDs as stores make them (RGW's `2~...`, AWS's long base64-like ones) and awkward ones.
    static let uploadIds = [
        "2~bLm2xXY4Vd0C3yQH0P7ZyXbA1uYcN2q", "VXBsb2FkIElEIGZvciA2aWWpbmcncyBteS1tb3ZpZS5tMnRzIHVwbG9hZA",
        "a/b+c=d", "with space", "~tilde.dot_under-dash", "%41%2F",
    ]

    /// `count` seeded cases, alternating UploadPart URLs and POST forms.
    static func makeCases(count: Int, seed: UInt64) -> [Case] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { index in
            let (region, endpoint) = PresignerBotocoreTests.endpoints.randomElement(using: &random)!
            let bucket = PresignerBotocoreTests.randomBucket(&random)
            var addressing = Bool.random(using: &random) ? "path" : "virtual"
            if endpoint.contains("127.0.0.1") && bucket.contains(".") { addressing = "path" }
            let token: String? =
                Int.random(in: 0..<4, using: &random) == 0
                ? PresignerBotocoreTests.randomBase64(Int.random(in: 16...300, using: &random), &random) + "/+="
                : nil
            var testCase = Case(
                kind: index % 2 == 0 ? "upload_part" : "post", bucket: bucket,
                key: PresignerBotocoreTests.randomKey(&random), region: region, endpoint: endpoint,
                addressing: addressing, expires: Int.random(in: 1...604_800, using: &random),
                epochSeconds: Int64.random(in: 946_684_800..<4_102_444_800, using: &random), sessionToken: token)
            if testCase.kind == "upload_part" {
                testCase.uploadId = uploadIds.randomElement(using: &random)!
                testCase.partNumber = [1, 2, 9, 10, 99, 1000, 9999, 10_000].randomElement(using: &random)!
            } else {
                if Bool.random(using: &random) {
                    testCase.contentType = PresignerBotocoreTests.contentTypes.randomElement(using: &random)!
                }
                if Bool.random(using: &random) {
                    testCase.lengthMin = Int64.random(in: 0...1000, using: &random)
                    testCase.lengthMax = Int64.random(in: 1000...5_368_709_120, using: &random)
                }
                if Int.random(in: 0..<3, using: &random) > 0 {
                    testCase.successActionStatus = [200, 201, 204].randomElement(using: &random)!
                }
            }
            return testCase
        }
    }

    /// Runs the script on `input`.
    static func runScript(_ input: Input) throws -> Output {
        try PythonScript.run("boto3_multipart_crosscheck.py", input: input)
    }

    /// A presigner for `testCase`.
    static func presigner(_ testCase: Case) throws -> Presigner {
        try Presigner(
            credentials: Credentials(
                accessKeyId: accessKeyId, secretAccessKey: Secret(secret),
                sessionToken: testCase.sessionToken.map(Secret.init)),
            region: testCase.region, endpoint: Endpoint(parsing: testCase.endpoint),
            addressing: AddressingStyle(rawValue: testCase.addressing)!)
    }

    @Test("200 seeded UploadPart URLs and POST forms agree with botocore")
    func randomCasesAgree() throws {
        let cases = Self.makeCases(count: 200, seed: 0x4D55_4C54)
        let output = try Self.runScript(
            Input(accessKeyId: Self.accessKeyId, secretAccessKey: Self.secret, cases: cases))
        try #require(
            output.results.count == cases.count, "botocore \(output.botocore) answered \(output.results.count)")
        var compared = (parts: 0, posts: 0)
        for (index, (testCase, theirs)) in zip(cases, output.results).enumerated() {
            let context =
                "case \(index): \(testCase.kind) \(testCase.bucket) \(testCase.key.debugDescription) "
                + "\(testCase.endpoint) \(testCase.addressing)"
            let presigner = try Self.presigner(testCase)
            if testCase.kind == "upload_part" {
                let ours = try presigner.presignUploadPart(
                    bucket: testCase.bucket, key: testCase.key, uploadId: testCase.uploadId!,
                    partNumber: testCase.partNumber!, expires: testCase.expires, now: testCase.epochSeconds)
                let ourURL = TestURL(ours.url)
                let theirURL = TestURL(theirs.url)
                #expect(ourURL.value("X-Amz-Signature") == theirURL.value("X-Amz-Signature"), "\(context)")
                #expect(
                    PresignerBotocoreTests.parts(of: ourURL.base) == PresignerBotocoreTests.parts(of: theirURL.base),
                    "\(context)")
                #expect(ourURL.pairSet == theirURL.pairSet, "\(context)")
                #expect(Array(ourURL.names.prefix(2)) == ["partNumber", "uploadId"], "\(context)")
                compared.parts += 1
            } else {
                let range: ClosedRange<Int64>? = testCase.lengthMin.map { $0...testCase.lengthMax! }
                let ours = try presigner.presignPost(
                    PresignPostRequest(
                        bucket: testCase.bucket, key: .exact(testCase.key), contentType: testCase.contentType,
                        contentLength: range, successActionStatus: testCase.successActionStatus,
                        expires: testCase.expires),
                    now: testCase.epochSeconds)
                let ourFields = Dictionary(uniqueKeysWithValues: ours.fields.map { ($0.name, $0.value) })
                #expect(ourFields == theirs.fields, "\(context)")
                #expect(
                    PresignerBotocoreTests.parts(of: ours.url) == PresignerBotocoreTests.parts(of: theirs.url),
                    "\(context): \(ours.url) vs \(theirs.url)")
                compared.posts += 1
            }
        }
        #expect(compared.parts == 100 && compared.posts == 100)
    }

    @Test("botocore 1.43.11: a POST form with every condition, and a starts-with key")
    func fixedPostVectors() throws {
        let testCase = Case(
            kind: "post", bucket: "uploads", key: "a/é b.mp4", region: "us-east-1",
            endpoint: "http://127.0.0.1:9000", addressing: "path", expires: 600, epochSeconds: 1_795_942_771)
        let post = try Self.presigner(testCase).presignPost(
            PresignPostRequest(
                bucket: "uploads", key: .exact("a/é b.mp4"), contentType: "video/mp4", contentLength: 0...100,
                successActionStatus: 201, expires: 600),
            now: 1_795_942_771)
        // generate_presigned_post("uploads", "a/é b.mp4", Fields={"Content-Type": "video/mp4",
        // "success_action_status": "201"}, Conditions=[{"Content-Type": "video/mp4"},
        // ["content-length-range", 0, 100], {"success_action_status": "201"}], ExpiresIn=600)
        #expect(post.field("x-amz-signature") == "097768477f981488e9edcfcf68f6405b683790b476dfed614d99f159148ee516")
        #expect(post.url == "http://127.0.0.1:9000/uploads")
        #expect(
            post.policyDocument
                == #"{"expiration": "2026-11-29T09:09:31Z", "conditions": [{"Content-Type": "video/mp4"}, "#
                + #"["content-length-range", 0, 100], {"success_action_status": "201"}, {"bucket": "uploads"}, "#
                + #"{"key": "a/\u00e9 b.mp4"}, {"x-amz-algorithm": "AWS4-HMAC-SHA256"}, "#
                + #"{"x-amz-credential": "AKIAIOSFODNN7EXAMPLE/20261129/us-east-1/s3/aws4_request"}, "#
                + #"{"x-amz-date": "20261129T085931Z"}]}"#)
        #expect(
            post.fields.map(\.name) == [
                "key", "Content-Type", "success_action_status", "x-amz-algorithm", "x-amz-credential", "x-amz-date",
                "policy", "x-amz-signature",
            ])
        #expect(post.expiresAt == 1_795_942_771 + 600)
        #expect(!post.description.contains(post.field("x-amz-signature")!))

        let prefixed = try Self.presigner(testCase).presignPost(
            PresignPostRequest(bucket: "uploads", key: .prefix("user/7/"), successActionStatus: nil, expires: 60),
            now: 1_795_942_771)
        #expect(prefixed.field("key") == "user/7/${filename}")
        #expect(prefixed.policyDocument.contains(#"["starts-with", "$key", "user/7/"]"#))
    }

    @Test("botocore 1.43.11: upload_part, virtual-hosted on AWS")
    func fixedUploadPartVector() throws {
        let testCase = Case(
            kind: "upload_part", bucket: "uploads", key: "big/video.mp4", region: "us-east-1",
            endpoint: "https://s3.amazonaws.com", addressing: "virtual", expires: 3600, epochSeconds: 1_795_942_771)
        let url = try Self.presigner(testCase).presignUploadPart(
            bucket: "uploads", key: "big/video.mp4", uploadId: "a/b+c=d", partNumber: 3, expires: 3600,
            now: 1_795_942_771)
        let parsed = TestURL(url.url)
        #expect(parsed.value("X-Amz-Signature") == "ce2364664867bb60e9a9a532d66a2f303dfd187f84706ed672cef8a86e06b786")
        #expect(parsed.base == "https://uploads.s3.amazonaws.com/big/video.mp4")
        #expect(Array(parsed.names.prefix(2)) == ["partNumber", "uploadId"])
    }

    @Test func refusals() throws {
        let presigner = try Self.presigner(
            Case(
                kind: "post", bucket: "b", key: "k", region: "us-east-1", endpoint: "http://127.0.0.1:9000",
                addressing: "path", expires: 1, epochSeconds: 0))
        for partNumber in [Int.min, -1, 0, 10_001] {
            #expect(throws: SigV4Error.self) {
                try presigner.presignUploadPart(
                    bucket: "uploads", key: "k", uploadId: "u", partNumber: partNumber, expires: 60, now: 0)
            }
        }
        #expect(throws: SigV4Error.self) {
            try presigner.presignUploadPart(
                bucket: "uploads", key: "k", uploadId: "", partNumber: 1, expires: 60, now: 0)
        }
        let bad: [PresignPostRequest] = [
            PresignPostRequest(bucket: "uploads", key: .exact("k"), expires: 0),
            PresignPostRequest(bucket: "uploads", key: .exact("k"), expires: 604_801),
            PresignPostRequest(bucket: "u", key: .exact("k"), expires: 60),
            PresignPostRequest(bucket: "uploads", key: .exact(""), expires: 60),
            PresignPostRequest(bucket: "uploads", key: .exact("a/../b"), expires: 60),
            PresignPostRequest(bucket: "uploads", key: .exact("k"), contentType: "a\r\nb", expires: 60),
            PresignPostRequest(bucket: "uploads", key: .exact("k"), contentType: "", expires: 60),
            PresignPostRequest(bucket: "uploads", key: .exact("k"), contentLength: -1...5, expires: 60),
            PresignPostRequest(bucket: "uploads", key: .exact("k"), successActionStatus: 302, expires: 60),
        ]
        for request in bad {
            #expect(throws: SigV4Error.self) { try presigner.presignPost(request, now: 0) }
        }
    }

    @Test("JSON strings are escaped as Python's json.dumps escapes them")
    func jsonEscaping() {
        let table: [(String, String)] = [
            ("plain", #""plain""#), ("q\"b\\", #""q\"b\\""#), ("\n\r\t\u{8}\u{C}", #""\n\r\t\b\f""#),
            ("\u{1}\u{1F}\u{7F}", #""\u0001\u001f\u007f""#), ("é", #""\u00e9""#), ("한", #""\ud55c""#),
            ("😀", #""\ud83d\ude00""#), ("/${filename}", #""/${filename}""#),
        ]
        for (input, expected) in table {
            var output = [UInt8]()
            PostPolicy.appendString(input, to: &output)
            #expect(String(decoding: output, as: UTF8.self) == expected, "\(input.debugDescription)")
        }
    }
}
