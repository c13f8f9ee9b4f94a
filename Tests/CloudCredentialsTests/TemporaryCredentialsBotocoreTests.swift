import CloudCredentials
import Crypto
import Foundation
import SigV4
import Testing

/// End to end: temporary credentials from the local STS stand-in sign a URL, and botocore, given
/// the same credentials, time and request, computes the same signature. Without python3 and boto3
/// this test fails; it never passes silently.
@Suite struct TemporaryCredentialsBotocoreTests {
    /// One case as `scripts/boto3_crosscheck.py` reads it.
    struct Case: Codable {
        var method: String
        var bucket: String
        var key: String
        var region: String
        var endpoint: String
        var addressing: String
        var expires: Int
        var epochSeconds: Int64
        var signedHeaders: [String: String]
        var sessionToken: String?
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
            var signature: String
        }
        var botocore: String
        var results: [Result]
    }

    /// Runs the script on `input`.
    static func runScript(_ input: Input, filePath: String = #filePath) throws -> Output {
        let root = URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let script = root.appendingPathComponent("scripts/boto3_crosscheck.py")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "credentials-crosscheck-\(ProcessInfo.processInfo.processIdentifier)-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let inputFile = directory.appendingPathComponent("in.json")
        let outputFile = directory.appendingPathComponent("out.json")
        let errorFile = directory.appendingPathComponent("err.txt")
        try JSONEncoder().encode(input).write(to: inputFile)
        try Data().write(to: outputFile)
        try Data().write(to: errorFile)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path]
        process.standardInput = try FileHandle(forReadingFrom: inputFile)
        process.standardOutput = try FileHandle(forWritingTo: outputFile)
        process.standardError = try FileHandle(forWritingTo: errorFile)
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let errors = String(decoding: (try? Data(contentsOf: errorFile)) ?? Data(), as: UTF8.self)
            Issue.record("python3 \(script.path) failed (python3 and boto3 are required: pip install boto3): \(errors)")
            throw CocoaError(.fileReadUnknown)
        }
        return try JSONDecoder().decode(Output.self, from: Data(contentsOf: outputFile))
    }

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
