import CloudCredentials
import Crypto
import Foundation
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

    /// botocore's SharedCredentialProvider and ConfigProvider catch ConfigNotFound (the path is no
    /// file) and give no credentials, so the AWS CLI carries on with the next provider: a named file
    /// that does not exist is skipped the same way, with a start-up warning. The real file reader is
    /// used, so the system's "does not exist" text is the one recognised.
    @Test func aNamedFileThatDoesNotExistIsSkippedWithAWarning() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shared-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("config").path
        try "[default]\naws_access_key_id = AKIDCONFIG\naws_secret_access_key = S\n".write(
            toFile: config, atomically: true, encoding: .utf8)
        func context(_ environment: [String: String]) -> CredentialsContext {
            CredentialsContext(environment: environment, now: { 0 }, random: { _ in 0 })
        }
        let missing = dir.appendingPathComponent("no-credentials").path
        let onlyMissing = SharedFilesCredentialsProvider(context: context(["AWS_SHARED_CREDENTIALS_FILE": missing]))
        #expect(
            throws: CredentialsError.notConfigured(
                provider: "shared files", reason: "no shared credentials or config file")
        ) {
            try onlyMissing.fetch()
        }
        #expect(
            onlyMissing.startupWarnings() == [
                "AWS_SHARED_CREDENTIALS_FILE names \(missing), which does not exist: skipped, as the AWS CLI and SDKs skip it"
            ])
        // The other file still answers.
        let withConfig = SharedFilesCredentialsProvider(
            context: context(["AWS_SHARED_CREDENTIALS_FILE": missing, "AWS_CONFIG_FILE": config]))
        #expect(try withConfig.fetch().credentials.accessKeyId == "AKIDCONFIG")
        #expect(withConfig.startupWarnings().count == 1)
        let bothMissing = SharedFilesCredentialsProvider(
            context: context(["AWS_SHARED_CREDENTIALS_FILE": missing, "AWS_CONFIG_FILE": missing + ".config"]))
        #expect(bothMissing.startupWarnings().count == 2)
        #expect(SharedFilesCredentialsProvider(context: context(["AWS_CONFIG_FILE": config])).startupWarnings().isEmpty)
        // The chain carries the warning to the start-up log.
        let resolution = CredentialsChain(providers: [onlyMissing]).resolve()
        #expect(resolution.warnings == onlyMissing.startupWarnings())
    }

    @Test func aNamedFileThatExistsButCannotBeReadIsAnError() {
        let context = CredentialsContext(
            environment: ["AWS_SHARED_CREDENTIALS_FILE": "/tmp"], now: { 0 }, random: { _ in 0 })
        #expect(
            throws: CredentialsError.file(provider: "shared files", path: "/tmp", reason: "Is a directory")
        ) {
            try SharedFilesCredentialsProvider(context: context).fetch()
        }
        #expect(SharedFilesCredentialsProvider(context: context).startupWarnings().isEmpty)
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
