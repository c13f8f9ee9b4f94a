import Crypto
import Testing

@testable import SigV4

/// Signing a service call at the endpoint's root (`POST /`, RGW's topic API), with AWS's example
/// credentials and time; the signature was computed independently with Python's hmac/hashlib.
struct PresignerServiceSigningTests {
    @Test func aRootCallIsSignedAtSlashWhateverTheAddressing() throws {
        let body = Array("Action=ListTopics".utf8)
        let hash = SHA256.hash(body).hex
        #expect(hash == "e3e7cf6be6d17352ec0a60c59e8d7b2118c93e27881d38ef4f560217053be8a1")
        var canonical = ""
        let presigner = try PresignerHeaderSigningTests.examplePresigner()
        let signed = try presigner.signHeaders(
            method: "POST", bucket: "", key: "", query: [],
            headers: [("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")], payloadHash: hash,
            now: PresignerHeaderSigningTests.exampleTime, root: true
        ) {
            canonical = $0; _ = $1
        }
        #expect(
            canonical == """
                POST
                /

                content-type:application/x-www-form-urlencoded; charset=utf-8
                host:s3.amazonaws.com
                x-amz-content-sha256:\(hash)
                x-amz-date:20130524T000000Z

                content-type;host;x-amz-content-sha256;x-amz-date
                \(hash)
                """)
        #expect(signed.target == "/" && signed.url == "https://s3.amazonaws.com/")
        let viaPublic = try presigner.signServiceRequest(
            method: "POST", headers: [("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")],
            payloadHash: hash, now: PresignerHeaderSigningTests.exampleTime)
        #expect(viaPublic.headers.map(\.value) == signed.headers.map(\.value))
        #expect(
            PresignerHeaderSigningTests.header("Authorization", in: viaPublic)
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                + "SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date, "
                + "Signature=da1673b39504714d2df7551b9be95c2ad78cfaba4ba26ab5045439981524b8ca")
    }
}
