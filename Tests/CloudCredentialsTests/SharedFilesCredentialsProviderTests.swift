import CloudCredentials
import Crypto
import SigV4
import Testing

/// Static keys from the shared credentials and config files.
@Suite struct SharedFilesCredentialsProviderTests {
    /// The provider over `environment` in `world`.
    func fetch(_ world: TestWorld, _ environment: [String: String]) throws(CredentialsError) -> ProvidedCredentials {
        try SharedFilesCredentialsProvider(context: world.context(environment)).fetch()
    }

    @Test func readsTheDefaultProfileUnderHome() throws {
        let world = TestWorld()
        world.write(
            "/home/app/.aws/credentials", "[default]\naws_access_key_id=AKIDDEFAULT\naws_secret_access_key=S1\n")
        let provided = try fetch(world, ["HOME": "/home/app/"])
        #expect(provided.credentials.accessKeyId == "AKIDDEFAULT")
        #expect(provided.credentials.secretAccessKey == Secret("S1"))
        #expect(provided.credentials.sessionToken == nil && provided.credentials.expiration == nil)
        #expect(provided.origins == ["/home/app/.aws/credentials [default]"])
    }

    @Test func theCredentialsFileWinsOverTheConfigFileKeyByKey() throws {
        let world = TestWorld()
        world.write("/etc/aws/credentials", "[prod]\naws_secret_access_key = FROM-CREDENTIALS\n")
        world.write(
            "/etc/aws/config",
            "[profile prod]\naws_access_key_id = AKIDCONFIG\naws_secret_access_key = FROM-CONFIG\naws_session_token = T\n"
        )
        let provided = try fetch(
            world,
            [
                "AWS_SHARED_CREDENTIALS_FILE": "/etc/aws/credentials", "AWS_CONFIG_FILE": "/etc/aws/config",
                "AWS_PROFILE": "prod",
            ])
        #expect(provided.credentials.accessKeyId == "AKIDCONFIG")
        #expect(provided.credentials.secretAccessKey == Secret("FROM-CREDENTIALS"))
        #expect(provided.credentials.sessionToken == Secret("T"))
        #expect(provided.origins == ["/etc/aws/config [prod]", "/etc/aws/credentials [prod]"])
    }

    @Test func expandsATildeAndReadsTheFilesAgainOnEachFetch() throws {
        let world = TestWorld()
        world.write("/home/app/creds", "[default]\naws_access_key_id = AKID1\naws_secret_access_key = S\n")
        let provider = SharedFilesCredentialsProvider(
            context: world.context(["HOME": "/home/app", "AWS_SHARED_CREDENTIALS_FILE": "~/creds"]))
        #expect(try provider.fetch().credentials.accessKeyId == "AKID1")
        world.write("/home/app/creds", "[default]\naws_access_key_id = AKID2\naws_secret_access_key = S\n")
        #expect(try provider.fetch().credentials.accessKeyId == "AKID2")
    }

    @Test func isSkippedWithoutFilesProfileOrKeys() {
        let world = TestWorld()
        let cases: [([String: String], String)] = [
            ([:], "no shared credentials or config file"),
            (["HOME": "/home/none"], "no shared credentials or config file"),
        ]
        for (environment, reason) in cases {
            #expect(throws: CredentialsError.notConfigured(provider: "shared files", reason: reason)) {
                try fetch(world, environment)
            }
        }
        world.write("/home/app/.aws/config", "[default]\nregion = eu-west-1\n[profile other]\nregion = x\n")
        #expect(
            throws: CredentialsError.notConfigured(
                provider: "shared files", reason: "profile default has no aws_access_key_id")
        ) {
            try fetch(world, ["HOME": "/home/app"])
        }
        world.write("/home/app/.aws/config", "[profile other]\nregion = x\n")
        #expect(
            throws: CredentialsError.notConfigured(
                provider: "shared files", reason: "no [default] profile in /home/app/.aws/config")
        ) {
            try fetch(world, ["HOME": "/home/app"])
        }
    }

    @Test func refusesWhatCannotWork() {
        let world = TestWorld()
        world.write(
            "/home/app/.aws/config",
            "[profile sso]\nsso_session = corp\n[profile assume]\nrole_arn = arn:aws:iam::1:role/x\nsource_profile = default\n"
        )
        world.write(
            "/home/app/.aws/credentials",
            "[half]\naws_access_key_id = AKID\n[bad]\naws_access_key_id = AK ID\naws_secret_access_key = S\n")
        let cases: [(String, String)] = [
            ("missing", "profile missing is not in /home/app/.aws/credentials and /home/app/.aws/config"),
            ("half", "profile half lacks aws_secret_access_key"),
            ("bad", "profile bad holds a key or token that is not visible ASCII"),
        ]
        for (profile, reason) in cases {
            #expect(throws: CredentialsError.invalidConfiguration(provider: "shared files", reason: reason)) {
                try fetch(world, ["HOME": "/home/app", "AWS_PROFILE": profile])
            }
        }
        for (profile, key) in [("sso", "sso_session"), ("assume", "role_arn")] {
            do {
                _ = try fetch(world, ["HOME": "/home/app", "AWS_PROFILE": profile])
                Issue.record("profile \(profile) gave credentials")
            } catch {
                guard case .invalidConfiguration(_, let reason) = error else { Issue.record("\(error)"); return }
                #expect(reason.hasPrefix("profile \(profile) uses \(key), which presignd does not support"))
            }
        }
    }

    @Test func anUnreadableFileSetInTheEnvironmentIsAnError() {
        let world = TestWorld()
        #expect(
            throws: CredentialsError.file(
                provider: "shared files", path: "/missing/credentials", reason: "No such file or directory")
        ) {
            try fetch(world, ["AWS_SHARED_CREDENTIALS_FILE": "/missing/credentials"])
        }
    }

    @Test func aSyntaxErrorNamesTheLineNotTheValue() {
        let world = TestWorld()
        world.write("/home/app/.aws/credentials", "[default]\naws_access_key_id = AKID\nSECRETVALUEWITHOUTEQUALS\n")
        #expect(
            throws: CredentialsError.invalidConfiguration(
                provider: "shared files", reason: "/home/app/.aws/credentials line 3: expected key = value")
        ) {
            try fetch(world, ["HOME": "/home/app"])
        }
    }
}
