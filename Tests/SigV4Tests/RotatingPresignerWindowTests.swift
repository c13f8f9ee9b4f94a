import Crypto
import Foundation
import TestSupport
import Testing

@testable import SigV4

/// `RotatingPresigner.lifetime(_:signedAt:now:on:)`: a URL signed at a window's start never outlives its
/// credentials nor SigV4's 7 days; and read URLs with `response-*` parameters, signed at such an
/// instant, are the URLs botocore signs (`scripts/boto3_read_urls.py`).
@Suite("Presigning at a window's start")
struct RotatingPresignerWindowTests {
    static let now: Int64 = 1_795_942_771
    static let windowStart: Int64 = 1_795_939_200

    /// A holder of credentials expiring at `expiration` (nil: long-term keys).
    static func signer(expiration: Int64?, minimum: Int = 60) throws -> RotatingPresigner {
        RotatingPresigner(
            try Presigner(
                credentials: Credentials(
                    accessKeyId: "AKIDEXAMPLE", secretAccessKey: Secret("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
                    sessionToken: expiration == nil ? nil : Secret("token"), expiration: expiration),
                region: "us-east-1", endpoint: Endpoint(parsing: "http://127.0.0.1:9000"), addressing: .path),
            minimumLifetimeSeconds: minimum)
    }

    @Test("long-term keys: the lifetime asked for, at most 7 days")
    func longTerm() throws {
        let s = try Self.signer(expiration: nil)
        #expect(try s.lifetime(7200, signedAt: Self.windowStart, now: Self.now, on: s.current) == 7200)
        #expect(try s.lifetime(700_000, signedAt: Self.windowStart, now: Self.now, on: s.current) == 604_800)
    }

    @Test("temporary credentials: shortened to end with them, refused with too little left at now")
    func temporary() throws {
        let s = try Self.signer(expiration: Self.now + 40, minimum: 30)
        let life = try s.lifetime(7200, signedAt: Self.windowStart, now: Self.now, on: s.current)
        #expect(Self.windowStart + Int64(life) == Self.now + 40)
        // Credentials that outlive the URL do not shorten it.
        let long = try Self.signer(expiration: Self.windowStart + 7200)
        #expect(try long.lifetime(7200, signedAt: Self.windowStart, now: Self.now, on: long.current) == 7200)
        // 40 s left at now, 60 needed.
        let short = try Self.signer(expiration: Self.now + 40)
        #expect(throws: SigV4Error.credentialsExpiring(secondsLeft: 40)) {
            try short.lifetime(7200, signedAt: Self.windowStart, now: Self.now, on: short.current)
        }
        #expect(short.refusalCount == 1)
        let expired = try Self.signer(expiration: Self.now - 5)
        #expect(throws: SigV4Error.credentialsExpiring(secondsLeft: 0)) {
            try expired.lifetime(7200, signedAt: Self.windowStart, now: Self.now, on: expired.current)
        }
    }

    /// The script's input.
    struct Input: Codable {
        struct Case: Codable {
            var bucket: String
            var key: String
            var region: String
            var endpoint: String
            var expires: Int
            var epochSeconds: Int64
            var contentType: String
            var contentDisposition: String
            var cacheControl: String
        }
        var accessKeyId: String
        var secretAccessKey: String
        var cases: [Case]
    }

    /// The script's output.
    struct Output: Codable {
        struct Result: Codable {
            var url: String
            var signature: String
            var query: [[String]]
        }
        var botocore: String
        var results: [Result]
    }

    /// Policies as read URLs carry them: dispositions with quotes, `'`, `*`, `%`, `;`, spaces and UTF-8.
    static let policies: [(type: String, disposition: String, cache: String)] = [
        ("image/jpeg", #"inline; filename="a.jpg""#, "private, max-age=7200, immutable"),
        (
            "text/html", #"attachment; filename="__ 1.html"; filename*=UTF-8''%EC%82%AC%EC%A7%84%201.html"#,
            "private, max-age=62, immutable"
        ),
        (
            "application/octet-stream", #"attachment; filename="x'_ filename*=UTF-8''e.exe""#,
            "private, max-age=1, immutable"
        ),
        (
            "image/JPEG; charset=binary", #"inline; filename="~!*()+=,&?#@$ [].png""#,
            "private, max-age=604800, immutable"
        ),
    ]

    @Test("response-* parameters are encoded and canonicalised as botocore signs them")
    func botocoreAgrees() throws {
        let secret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
        let presigner = try Presigner(
            credentials: Credentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: Secret(secret)), region: "us-east-1",
            endpoint: Endpoint(parsing: "http://127.0.0.1:9000"), addressing: .path)
        let keys = ["profile/1/origin/a.jpg", "k/사진 1.html", "k/x'y(z)", "a/b+c%d.png"]
        var cases: [Input.Case] = []
        var ours: [PresignedURL] = []
        for (index, policy) in Self.policies.enumerated() {
            let expires = [7200, 62, 1, 604_800][index]
            let at = Self.windowStart - Int64(index * 86_400)
            cases.append(
                Input.Case(
                    bucket: "uploads", key: keys[index], region: "us-east-1", endpoint: "http://127.0.0.1:9000",
                    expires: expires, epochSeconds: at, contentType: policy.type,
                    contentDisposition: policy.disposition, cacheControl: policy.cache))
            ours.append(
                try presigner.presign(
                    PresignRequest(
                        method: "GET", bucket: "uploads", key: keys[index], expires: expires,
                        query: [
                            ("response-cache-control", policy.cache),
                            ("response-content-disposition", policy.disposition),
                            ("response-content-type", policy.type),
                        ]), now: at))
        }
        let out: Output = try PythonScript.run(
            "boto3_read_urls.py", input: Input(accessKeyId: "AKIDEXAMPLE", secretAccessKey: secret, cases: cases))
        try #require(out.results.count == ours.count)
        for (mine, theirs) in zip(ours, out.results) {
            let query = try #require(mine.url.split(separator: "?", maxSplits: 1).last)
            let pairs = query.split(separator: "&").map { $0.split(separator: "=", maxSplits: 1).map(String.init) }
            #expect(Set(pairs) == Set(theirs.query), "\(mine.url)\n\(theirs.url)")
            #expect(mine.url.hasSuffix("X-Amz-Signature=" + theirs.signature), "botocore \(out.botocore)")
            #expect(mine.url.split(separator: "?")[0] == theirs.url.split(separator: "?")[0])
        }
    }
}
