import Crypto
import Foundation
import TestSupport
import Testing

@testable import SigV4

/// A randomized cross-check against botocore: ~200 seeded cases (keys full of Unicode, spaces,
/// `+`, `%`, `~`, `!*'()`, repeated slashes; random buckets, regions, endpoints, expiries, times,
/// signed headers, session tokens) are presigned here and by `scripts/boto3_crosscheck.py`
/// (boto3's `generate_presigned_url`, s3v4, clock fixed per case); signatures, paths, hosts and
/// query parameters must agree. Without python3 and boto3 this test fails: it never passes silently.
struct PresignerBotocoreTests {
    typealias Case = BotocorePresign.Case
    typealias Input = BotocorePresign.Input
    typealias Output = BotocorePresign.Output

    /// Pieces keys are made of.
    static let keyPieces = [
        "a", "Z", "0", "9", "photo", "delete/", "profile/", "/", "//", " ", "  ", "+", "%", "%2F", "%20", "~", "!", "*",
        "'", "(", ")", "!*'()", "=", "&", "?", "#", ":", "@", ",", ";", "$", "[", "]", "{", "}", "|", "^", "`", "\"",
        "<", ">", "\\", "-", "_", ".", "..", "...", ".jpg", "한글", "파일", "é", "e\u{301}", "ñ", "日本語", "😀", "👍🏽",
        "\u{00A0}", "\t", "\u{7F}", "Ω",
    ]
    /// Regions with the endpoints that serve them.
    static let endpoints: [(region: String, endpoint: String)] = [
        ("us-east-1", "https://s3.amazonaws.com"), ("ap-northeast-2", "https://s3.ap-northeast-2.amazonaws.com"),
        ("eu-west-1", "https://s3.eu-west-1.amazonaws.com"), ("us-east-1", "http://127.0.0.1:9000"),
        ("us-east-1", "http://localhost:7480"), ("kr-standard", "https://kr.object.ncloudstorage.com"),
        ("auto", "https://0123456789abcdef.r2.cloudflarestorage.com"), ("us-west-2", "http://s3.example.com"),
        ("us-east-1", "https://s3.example.com:8443"), ("us-east-1", "https://s3.example.com:443"),
    ]
    /// Content types to sign, some with spaces to normalise.
    static let contentTypes = [
        "image/jpeg", "image/png", "application/octet-stream", "text/plain; charset=utf-8",
        "text/plain;  charset=utf-8",
    ]

    /// A random key that the signer accepts (no `.`/`..` segment, at most 1024 bytes).
    static func randomKey(_ random: inout SplitMix64) -> String {
        while true {
            let count = Int.random(in: 1...12, using: &random)
            let key = (0..<count).map { _ in keyPieces.randomElement(using: &random)! }.joined()
            if (try? ObjectKey.validate(key, allowingEmpty: false)) != nil { return key }
        }
    }

    /// A random bucket name that the signer accepts: plain, dotted, upper case or with `_`.
    static func randomBucket(_ random: inout SplitMix64) -> String {
        let letters = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        func label() -> String {
            let middle = (0..<Int.random(in: 1...10, using: &random)).map { _ in
                Int.random(in: 0..<8, using: &random) == 0 ? "-" : String(letters.randomElement(using: &random)!)
            }.joined()
            return String(letters.randomElement(using: &random)!) + middle
                + String(letters.randomElement(using: &random)!)
        }
        switch Int.random(in: 0..<6, using: &random) {
        case 0: return label() + "." + label()
        case 1: return label() + "_" + label()
        case 2: return "My" + label()
        default: return label()
        }
    }

    /// Base64 of `count` random bytes.
    static func randomBase64(_ count: Int, _ random: inout SplitMix64) -> String {
        Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }).base64EncodedString()
    }

    /// `count` seeded cases.
    static func makeCases(count: Int, seed: UInt64) -> [Case] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            let (region, endpoint) = endpoints.randomElement(using: &random)!
            let method = ["PUT", "PUT", "GET", "HEAD", "DELETE"].randomElement(using: &random)!
            var headers = [String: String]()
            if method == "PUT" {
                if Bool.random(using: &random) { headers["content-type"] = contentTypes.randomElement(using: &random)! }
                if Int.random(in: 0..<4, using: &random) == 0 {
                    headers["content-length"] = String(Int.random(in: 0...50_000_000, using: &random))
                }
                if Int.random(in: 0..<4, using: &random) == 0 { headers["content-md5"] = randomBase64(16, &random) }
                if Int.random(in: 0..<4, using: &random) == 0 {
                    headers["x-amz-checksum-sha256"] = randomBase64(32, &random)
                }
                if Int.random(in: 0..<4, using: &random) == 0 { headers["if-none-match"] = "*" }
            } else if method == "GET" && Int.random(in: 0..<3, using: &random) == 0 {
                headers["range"] = "bytes=0-\(Int.random(in: 0...100_000, using: &random))"
            }
            let bucket = randomBucket(&random)
            var addressing = Bool.random(using: &random) ? "path" : "virtual"
            // botocore 1.43.11 puts a dotted bucket in front of an IP address over http
            // ("my.bucket.127.0.0.1:9000"); presignd keeps it path-style. Not compared.
            if endpoint.contains("127.0.0.1") && bucket.contains(".") { addressing = "path" }
            let token: String? =
                Int.random(in: 0..<4, using: &random) == 0
                ? randomBase64(Int.random(in: 16...300, using: &random), &random) + "/+=" : nil
            return Case(
                method: method, bucket: bucket, key: randomKey(&random), region: region, endpoint: endpoint,
                addressing: addressing, expires: Int.random(in: 1...604_800, using: &random),
                epochSeconds: Int64.random(in: 946_684_800..<4_102_444_800, using: &random), signedHeaders: headers,
                sessionToken: token)
        }
    }

    /// Inputs at the limits: 1024-byte keys whose every byte is encoded, a 63-byte bucket, a long
    /// session token and every optional header; they exercise the presigner's size bounds.
    static let extremeCases: [Case] = [
        Case(
            method: "PUT", bucket: "b" + String(repeating: "0", count: 61) + "b",
            key: String(repeating: "😀", count: 256),
            region: "us-east-1", endpoint: "https://s3.example.com:8443", addressing: "virtual", expires: 604_800,
            epochSeconds: 4_102_444_799,
            signedHeaders: [
                "content-type": "application/x-" + String(repeating: "long-", count: 40) + "type; a=b",
                "content-length": "5368709120", "content-md5": "1B2M2Y8AsgTpgAmY7PhCfg==",
                "x-amz-checksum-sha256": "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", "if-none-match": "*",
            ],
            sessionToken: String(repeating: "IQoJb3JpZ2luX2VjE/+=", count: 100)),
        Case(
            method: "GET", bucket: "My_Legacy.Bucket", key: String(repeating: "%", count: 1024),
            region: "ap-northeast-2",
            endpoint: "https://s3.ap-northeast-2.amazonaws.com", addressing: "path", expires: 1,
            epochSeconds: 946_684_800,
            signedHeaders: ["range": "bytes=0-0"], sessionToken: nil),
    ]

    /// Runs the script on `input`; throws with the script's message when it cannot run.
    static func runScript(_ input: Input) throws -> Output { try BotocorePresign.run(input) }

    /// The path and query of a URL, and its authority with a default port removed.
    static func parts(of url: String) -> (authority: String, rest: String) {
        let afterScheme = url.components(separatedBy: "://").dropFirst().joined(separator: "://")
        let slash = afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex
        var authority = String(afterScheme[..<slash])
        if url.hasPrefix("https://") && authority.hasSuffix(":443") { authority.removeLast(4) }
        if url.hasPrefix("http://") && authority.hasSuffix(":80") { authority.removeLast(3) }
        return (authority, String(afterScheme[slash...]))
    }

    @Test("200 seeded random cases and 2 extreme ones agree with botocore")
    func randomCasesAgree() throws {
        let accessKeyId = "AKIAIOSFODNN7EXAMPLE"
        let secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
        let cases = Self.makeCases(count: 200, seed: 0x5EED_516E) + Self.extremeCases
        let output = try Self.runScript(Input(accessKeyId: accessKeyId, secretAccessKey: secret, cases: cases))
        try #require(
            output.results.count == cases.count, "botocore \(output.botocore) answered \(output.results.count) cases")

        var compared = 0
        for (index, (testCase, theirs)) in zip(cases, output.results).enumerated() {
            let presigner = try Presigner(
                credentials: Credentials(
                    accessKeyId: accessKeyId, secretAccessKey: Secret(secret),
                    sessionToken: testCase.sessionToken.map(Secret.init)),
                region: testCase.region, endpoint: Endpoint(parsing: testCase.endpoint),
                addressing: AddressingStyle(rawValue: testCase.addressing)!)
            let ours = try presigner.presign(
                PresignRequest(
                    method: testCase.method, bucket: testCase.bucket, key: testCase.key, expires: testCase.expires,
                    signedHeaders: testCase.signedHeaders.map { (name: $0.key, value: $0.value) }),
                now: testCase.epochSeconds)
            let ourURL = TestURL(ours.url)
            let theirURL = TestURL(theirs.url)
            let context =
                "case \(index): \(testCase.method) \(testCase.bucket) \(testCase.key.debugDescription) \(testCase.endpoint) \(testCase.addressing)"
            #expect(ourURL.value("X-Amz-Signature") == theirs.signature, "\(context)")
            #expect(Self.parts(of: ourURL.base) == Self.parts(of: theirURL.base), "\(context)")
            #expect(ourURL.pairSet == theirURL.pairSet, "\(context)")
            #expect(ourURL.pairs.allSatisfy { $0.equalsSigns == 1 }, "\(context)")
            compared += 1
        }
        #expect(compared == 202)
    }
}
