import CloudCredentials
import Crypto
import Foundation
import SigV4
import TestSupport
import Testing

/// End to end: temporary credentials from the local STS stand-in sign a URL, and botocore, given
/// the same credentials, time and request, computes the same signature. Without python3 and boto3
/// this test fails; it never passes silently.
@Suite struct TemporaryCredentialsBotocoreTests {
    typealias Case = BotocorePresign.Case
    typealias Input = BotocorePresign.Input
    typealias Output = BotocorePresign.Output

    /// Runs `scripts/boto3_crosscheck.py` on `input`.
    static func runScript(_ input: Input) throws -> Output { try BotocorePresign.run(input) }

    @Test func aURLSignedWithSTSCredentialsMatchesBotocore() throws {
        let world = TestWorld()
        world.write(WebIdentityCredentialsProviderTests.tokenPath, "header.payload.signature")
        let expiration = TestWorld.start + 420
        let server = try StandInServer(replies: [
            StandInServer.xml(200, STSFixtures.success(expiration: rfc3339(expiration)))
        ])
        defer { server.stop() }
        let provided = try WebIdentityCredentialsProvider(
            context: world.context([
                "AWS_WEB_IDENTITY_TOKEN_FILE": WebIdentityCredentialsProviderTests.tokenPath,
                "AWS_ROLE_ARN": WebIdentityCredentialsProviderTests.roleArn, "AWS_ENDPOINT_URL_STS": server.baseURL,
            ]), options: WebIdentityOptions(remote: fastRemote())
        ).fetch()

        let endpoint = "https://s3.ap-northeast-2.amazonaws.com"
        let presigner = try Presigner(
            credentials: provided.credentials, region: "ap-northeast-2", endpoint: Endpoint(parsing: endpoint),
            addressing: .path)
        let lifetime = try #require(presigner.lifetime(clamping: 600, now: TestWorld.start))
        #expect(lifetime == 420, "the URL is clamped to the credentials' remaining life")
        let headers = ["content-type": "image/jpeg"]
        let ours = try presigner.presign(
            PresignRequest(
                method: "PUT", bucket: "uploads", key: "profile/42/photo one+.jpg", expires: lifetime,
                signedHeaders: headers.map { (name: $0.key, value: $0.value) }), now: TestWorld.start)

        let output = try Self.runScript(
            Input(
                accessKeyId: STSFixtures.accessKeyId, secretAccessKey: STSFixtures.secret,
                cases: [
                    Case(
                        method: "PUT", bucket: "uploads", key: "profile/42/photo one+.jpg", region: "ap-northeast-2",
                        endpoint: endpoint, addressing: "path", expires: lifetime, epochSeconds: TestWorld.start,
                        signedHeaders: headers, sessionToken: STSFixtures.sessionToken)
                ]))
        let theirs = try #require(output.results.first)
        let ourQuery = try Self.query(ours.url)
        let theirQuery = try Self.query(theirs.url)
        #expect(ourQuery["X-Amz-Security-Token"] == STSFixtures.sessionToken)
        #expect(ourQuery["X-Amz-Credential"]?.hasPrefix(STSFixtures.accessKeyId + "/") == true)
        #expect(ourQuery["X-Amz-Expires"] == "420")
        #expect(ourQuery["X-Amz-Signature"] == theirs.signature, "botocore \(output.botocore)")
        #expect(ourQuery == theirQuery)
        #expect(ours.url.split(separator: "?")[0] == theirs.url.split(separator: "?")[0])
    }

    /// The decoded query parameters of `url`.
    static func query(_ url: String) throws -> [String: String] {
        let components = try #require(URLComponents(string: url))
        var pairs: [String: String] = [:]
        for item in components.queryItems ?? [] { pairs[item.name] = item.value ?? "" }
        return pairs
    }
}
