import Crypto
import Testing

@testable import SigV4

/// Header signing (`Authorization`) against the four examples of "Signature Calculations for the
/// Authorization Header: Transferring Payload in a Single Chunk (AWS Signature Version 4)", Amazon
/// S3 API Reference (examplebucket, 2013-05-24, us-east-1); each signature was also recomputed
/// independently with Python's hmac/hashlib before being written here.
struct PresignerHeaderSigningTests {
    /// SHA-256 of the empty body.
    static let emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    /// 2013-05-24T00:00:00Z.
    static let exampleTime: Int64 = 1_369_353_600

    /// A virtual-hosted presigner with AWS's example credentials.
    static func examplePresigner(sessionToken: Secret? = nil) throws -> Presigner {
        try Presigner(
            credentials: Credentials(
                accessKeyId: "AKIAIOSFODNN7EXAMPLE",
                secretAccessKey: Secret("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
                sessionToken: sessionToken),
            region: "us-east-1", endpoint: Endpoint(parsing: "https://s3.amazonaws.com"), addressing: .virtual)
    }

    /// The value of header `name` (case-insensitive).
    static func header(_ name: String, in request: SignedRequest) -> String? {
        request.headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    @Test("AWS example: GET Object with Range")
    func getObject() throws {
        var (canonicalRequest, stringToSign) = ("", "")
        let signed = try Self.examplePresigner().signHeaders(
            method: "GET", bucket: "examplebucket", key: "test.txt", query: [], headers: [("Range", "bytes=0-9")],
            payloadHash: Self.emptyHash, now: Self.exampleTime
        ) { (canonicalRequest, stringToSign) = ($0, $1) }
        #expect(
            canonicalRequest == """
                GET
                /test.txt

                host:examplebucket.s3.amazonaws.com
                range:bytes=0-9
                x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                x-amz-date:20130524T000000Z

                host;range;x-amz-content-sha256;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
                """)
        #expect(stringToSign.hasSuffix("\n7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972"))
        #expect(
            Self.header("Authorization", in: signed)
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
                + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
        #expect(signed.url == "https://examplebucket.s3.amazonaws.com/test.txt")
        #expect(signed.target == "/test.txt")
        #expect(
            signed.headers.map(\.name) == ["Host", "X-Amz-Date", "X-Amz-Content-SHA256", "Range", "Authorization"])
        #expect(Self.header("Host", in: signed) == "examplebucket.s3.amazonaws.com")
        #expect(Self.header("X-Amz-Date", in: signed) == "20130524T000000Z")
    }

    @Test("AWS example: PUT Object with Date, x-amz-storage-class and a hashed payload")
    func putObject() throws {
        let payloadHash = SHA256.hash("Welcome to Amazon S3.").hex
        #expect(payloadHash == "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072")
        let signed = try Self.examplePresigner().signHeaders(
            method: "PUT", bucket: "examplebucket", key: "test$file.text",
            headers: [("Date", "Fri, 24 May 2013 00:00:00 GMT"), ("x-amz-storage-class", "REDUCED_REDUNDANCY")],
            payloadHash: payloadHash, now: Self.exampleTime)
        #expect(signed.target == "/test%24file.text")
        #expect(
            Self.header("Authorization", in: signed)?.hasSuffix(
                "SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class, "
                    + "Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd") == true)
    }

    @Test("AWS example: GET Bucket Lifecycle (?lifecycle)")
    func getLifecycle() throws {
        let signed = try Self.examplePresigner().signHeaders(
            method: "GET", bucket: "examplebucket", key: "", query: [("lifecycle", "")], payloadHash: Self.emptyHash,
            now: Self.exampleTime)
        #expect(signed.target == "/?lifecycle=")
        #expect(
            Self.header("Authorization", in: signed)?.hasSuffix(
                "Signature=fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543") == true)
    }

    @Test("AWS example: GET Bucket (List Objects) with max-keys and prefix")
    func listObjects() throws {
        let signed = try Self.examplePresigner().signHeaders(
            method: "GET", bucket: "examplebucket", key: "", query: [("prefix", "J"), ("max-keys", "2")],
            payloadHash: Self.emptyHash, now: Self.exampleTime)
        #expect(signed.target == "/?max-keys=2&prefix=J")
        #expect(
            Self.header("Authorization", in: signed)?.hasSuffix(
                "Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7") == true)
    }

    @Test("path-style on a port, UNSIGNED-PAYLOAD, a copy source and a session token")
    func copyWithToken() throws {
        let presigner = try Presigner(
            credentials: Credentials(
                accessKeyId: "AKID", secretAccessKey: Secret("secret"), sessionToken: Secret("TOKEN/VALUE")),
            region: "us-east-1", endpoint: Endpoint(parsing: "http://127.0.0.1:9000"), addressing: .path)
        var canonicalRequest = ""
        let signed = try presigner.signHeaders(
            method: "PUT", bucket: "uploads", key: "profile/42/origin/a b.jpg", query: [],
            headers: [("x-amz-copy-source", "/uploads/delete/profile/42/a%20b.jpg")], payloadHash: nil,
            now: 1_795_942_771
        ) { canonical, _ in canonicalRequest = canonical }
        #expect(
            canonicalRequest == """
                PUT
                /uploads/profile/42/origin/a%20b.jpg

                host:127.0.0.1:9000
                x-amz-content-sha256:UNSIGNED-PAYLOAD
                x-amz-copy-source:/uploads/delete/profile/42/a%20b.jpg
                x-amz-date:20261129T085931Z
                x-amz-security-token:TOKEN/VALUE

                host;x-amz-content-sha256;x-amz-copy-source;x-amz-date;x-amz-security-token
                UNSIGNED-PAYLOAD
                """)
        #expect(signed.url == "http://127.0.0.1:9000/uploads/profile/42/origin/a%20b.jpg")
        #expect(
            signed.headers.map(\.name) == [
                "Host", "X-Amz-Date", "X-Amz-Content-SHA256", "X-Amz-Security-Token", "x-amz-copy-source",
                "Authorization",
            ])
        #expect(Self.header("X-Amz-Security-Token", in: signed) == "TOKEN/VALUE")
        #expect(Self.header("Host", in: signed) == "127.0.0.1:9000")
        #expect(!"\(signed)".contains("TOKEN") && !"\(signed)".contains("Signature"))
        #expect("\(signed)" == "PUT /uploads/profile/42/origin/a%20b.jpg")
    }

    @Test(
        "payload hashes must be UNSIGNED-PAYLOAD or 64 lower-case hex digits",
        arguments: [
            "", "unsigned-payload", String(repeating: "A", count: 64), String(repeating: "a", count: 63),
            "STREAMING-UNSIGNED-PAYLOAD-TRAILER",
        ])
    func payloadHashRefused(hash: String) throws {
        let presigner = try Self.examplePresigner()
        #expect(throws: SigV4Error.invalidPayloadHash(hash)) {
            try presigner.signHeaders(method: "HEAD", bucket: "examplebucket", key: "k", payloadHash: hash, now: 0)
        }
    }

    @Test("headers the signer sets cannot be passed in")
    func reservedHeaders() throws {
        let presigner = try Self.examplePresigner()
        for name in ["Host", "Authorization", "X-Amz-Date", "x-amz-content-sha256", "X-Amz-Security-Token"] {
            #expect(throws: SigV4Error.self) {
                try presigner.signHeaders(
                    method: "HEAD", bucket: "examplebucket", key: "k", headers: [(name, "x")], now: 0)
            }
        }
    }
}
