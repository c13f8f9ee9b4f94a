import Config
import Crypto
import SigV4
import Testing

@testable import Commands

/// `presignd explain` in a second shell (issue 35): without the server's credentials it leads with the
/// two variables to set and the command that sets them; with them, a URL checked without `--header`
/// names the headers the request must carry.
@Suite("presignd explain")
struct ExplainCommandTests {
    static let now: Int64 = 1_796_126_400
    static let url =
        "http://127.0.0.1:9000/uploads/delete/profile/42/x.jpg?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20261201T120000Z"
        + "&X-Amz-SignedHeaders=host&X-Amz-Credential=AKID%2F20261201%2Fus-east-1%2Fs3%2Faws4_request"
        + "&X-Amz-Expires=600&X-Amz-Signature=" + String(repeating: "0", count: 64)

    @Test("no credentials: exit 2, the two variables named first, and `bash scripts/run.sh explain`")
    func noCredentials() {
        var config = PresigndConfig.defaults
        config.s3.credentialSources = ["environment"]
        let outcome = ExplainCommand.run(
            config: config, arguments: ExplainArguments(url: Self.url), nowSeconds: Self.now, environment: [:])
        #expect(outcome.status == 2)
        #expect(
            outcome.output.hasPrefix(
                "presignd explain: no storage credentials to recompute the signature with: set the two the server "
                    + "signs with, PRESIGN_S3_ACCESS_KEY_ID and PRESIGN_S3_SECRET_ACCESS_KEY"), "\(outcome.output)")
        #expect(outcome.output.contains("run `bash scripts/run.sh explain 'URL'`"))
        #expect(outcome.output.contains("\n(credentials: "), "the chain's own account follows")
    }

    @Test("with credentials and no --header: the signed headers are named, exit 1 instead of no difference")
    func namesSignedHeaders() throws {
        var config = PresigndConfig.defaults
        config.s3.credentialSources = ["environment"]
        let secret = "explain-command-test-secret-0000000001"
        config.s3.accessKeyId = "AKIDEXPLAINCMD"
        config.s3.secretAccessKey = Secret(secret)
        let signer = try Presigner(
            credentials: Credentials(accessKeyId: "AKIDEXPLAINCMD", secretAccessKey: Secret(secret)),
            region: config.s3.region, endpoint: Endpoint(parsing: config.s3.endpoint), addressing: .path)
        let url = try signer.presign(
            PresignRequest(
                method: "PUT", bucket: config.s3.bucket, key: "0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6a", expires: 600,
                signedHeaders: [("Content-Type", "image/png"), ("Content-Length", "99")]), now: Self.now
        ).url
        let bare = ExplainCommand.run(
            config: config, arguments: ExplainArguments(url: url), nowSeconds: Self.now + 1, environment: [:])
        #expect(bare.status == 1, "\(bare.output)")
        #expect(bare.output.contains(#""code": "SIGNED_HEADERS_UNCHECKED""#), "\(bare.output)")
        #expect(bare.output.contains("the URL signs content-length, content-type besides host"))

        let given = ExplainCommand.run(
            config: config,
            arguments: ExplainArguments(
                url: url, headers: ["Content-Type: image/png", "Content-Length: 99"], method: "PUT"),
            nowSeconds: Self.now + 1, environment: [:])
        #expect(given.status == 0, "\(given.output)")
        #expect(given.output.contains(#""signatureMatches": true"#), "\(given.output)")
    }
}
