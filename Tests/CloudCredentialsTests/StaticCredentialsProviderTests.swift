import CloudCredentials
import Crypto
import SigV4
import Testing

/// The static link: hands on the configured keys and names their origins, never their values.
@Suite struct StaticCredentialsProviderTests {
    @Test func handsOnTheConfiguredKeys() throws {
        let keys = Credentials(accessKeyId: "AKIDSTATIC", secretAccessKey: Secret("s"))
        let provided = try StaticCredentialsProvider(credentials: keys, origins: ["PRESIGN_S3_ACCESS_KEY_ID"]).fetch()
        #expect(provided.credentials.accessKeyId == "AKIDSTATIC")
        #expect(provided.summary == "static (PRESIGN_S3_ACCESS_KEY_ID)")
        #expect(throws: CredentialsError.self) { try StaticCredentialsProvider(credentials: nil, origins: []).fetch() }
    }

    @Test func originsFollowConfigsPrecedence() {
        #expect(
            StaticCredentialsProvider.origins(environment: [
                "PRESIGN_S3_ACCESS_KEY_ID": "AKID", "PRESIGN_S3_SECRET_ACCESS_KEY_FILE": "/run/secrets/s3",
                "AWS_ACCESS_KEY_ID": "OTHER", "AWS_SECRET_ACCESS_KEY": "OTHER", "AWS_SESSION_TOKEN": "T",
            ]) == ["PRESIGN_S3_ACCESS_KEY_ID", "PRESIGN_S3_SECRET_ACCESS_KEY_FILE"])
        #expect(
            StaticCredentialsProvider.origins(environment: [
                "AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "S", "AWS_SESSION_TOKEN": "",
            ]) == ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"])
        #expect(
            StaticCredentialsProvider.origins(
                environment: ["PRESIGN_S3_SECRET_ACCESS_KEY": "S", "AWS_ACCESS_KEY_ID": "AKID"],
                accessKeyIdInConfigFile: true) == ["config file s3.accessKeyId", "PRESIGN_S3_SECRET_ACCESS_KEY"])
        #expect(StaticCredentialsProvider.origins(environment: [:]).isEmpty)
    }

    @Test func originsNeverHoldValues() {
        let environment = [
            "AWS_ACCESS_KEY_ID": "AKIDVALUE", "AWS_SECRET_ACCESS_KEY": "SECRETVALUE", "AWS_SESSION_TOKEN": "TOKENVALUE",
        ]
        let text = StaticCredentialsProvider.origins(environment: environment).joined()
        #expect(!text.contains("VALUE"))
    }
}
