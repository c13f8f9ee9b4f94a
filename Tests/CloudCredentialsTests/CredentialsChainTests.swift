import CloudCredentials
import Crypto
import SigV4
import TestSupport
import Testing

/// The standard chain's order: static keys, web identity, shared files, container, IMDS. A
/// provider that is not configured is skipped; the first configured one decides.
@Suite struct CredentialsChainTests {
    /// Stand-ins for every remote provider, and a world with every provider configured.
    final class Everything: Sendable {
        let world = TestWorld()
        let sts: StandInServer
        let agent: StandInServer
        let imds: StandInServer

        init() throws {
            sts = try StandInServer(replies: [
                StandInServer.xml(200, STSFixtures.success(expiration: rfc3339(TestWorld.start + 3600)))
            ])
            agent = try StandInServer(replies: [
                StandInServer.json(200, ContainerCredentialsProviderTests.answer(expiration: TestWorld.start + 3600))
            ])
            imds = try InstanceMetadataCredentialsProviderTests.service()
            world.write(WebIdentityCredentialsProviderTests.tokenPath, "jwt.token.value")
            world.write(
                "/home/app/.aws/credentials", "[default]\naws_access_key_id = AKIDFILES\naws_secret_access_key = S\n")
        }

        deinit {
            sts.stop()
            agent.stop()
            imds.stop()
        }

        /// Every provider's variables.
        var environment: [String: String] {
            [
                "AWS_WEB_IDENTITY_TOKEN_FILE": WebIdentityCredentialsProviderTests.tokenPath,
                "AWS_ROLE_ARN": WebIdentityCredentialsProviderTests.roleArn, "AWS_ENDPOINT_URL_STS": sts.baseURL,
                "HOME": "/home/app", "AWS_CONTAINER_CREDENTIALS_FULL_URI": agent.baseURL + "/creds",
                "AWS_EC2_METADATA_SERVICE_ENDPOINT": imds.baseURL,
            ]
        }

        /// The standard chain over `environment`, with static keys when `withStatic`.
        func chain(_ environment: [String: String], withStatic: Bool) -> CredentialsChain {
            let remote = fastRemote(retries: 0)
            return CredentialsChain.standard(
                staticCredentials: withStatic
                    ? Credentials(accessKeyId: "AKIDSTATIC", secretAccessKey: Secret("static-secret")) : nil,
                staticOrigins: withStatic ? ["PRESIGN_S3_ACCESS_KEY_ID", "PRESIGN_S3_SECRET_ACCESS_KEY"] : [],
                context: world.context(environment),
                options: CredentialsChainOptions(
                    webIdentity: WebIdentityOptions(remote: remote), container: ContainerOptions(remote: remote),
                    instanceMetadata: InstanceMetadataOptions(remote: remote)))
        }

        /// Requests each stand-in has seen: STS, agent, IMDS.
        var counts: [Int] { [sts.requests.count, agent.requests.count, imds.requests.count] }
    }

    @Test func eachProviderWinsOverTheOnesAfterIt() throws {
        let all = try Everything()
        var environment = all.environment

        var resolution = all.chain(environment, withStatic: true).resolve()
        #expect(try resolution.result.get().credentials.accessKeyId == "AKIDSTATIC")
        #expect(resolution.provider?.name == "static" && resolution.skipped.isEmpty)
        #expect(all.counts == [0, 0, 0])

        resolution = all.chain(environment, withStatic: false).resolve()
        #expect(try resolution.result.get().credentials.accessKeyId == STSFixtures.accessKeyId)
        #expect(resolution.skipped.count == 1 && resolution.skipped[0].hasPrefix("static: "))
        #expect(all.counts == [1, 0, 0])

        environment["AWS_WEB_IDENTITY_TOKEN_FILE"] = nil
        environment["AWS_ROLE_ARN"] = nil
        resolution = all.chain(environment, withStatic: false).resolve()
        #expect(try resolution.result.get().credentials.accessKeyId == "AKIDFILES")
        #expect(resolution.provider?.name == "shared files")
        #expect(all.counts == [1, 0, 0])

        environment["HOME"] = nil
        resolution = all.chain(environment, withStatic: false).resolve()
        #expect(try resolution.result.get().credentials.accessKeyId == "ASIACONTAINEREXAMPLE")
        #expect(all.counts == [1, 1, 0])

        environment["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = nil
        resolution = all.chain(environment, withStatic: false).resolve()
        #expect(try resolution.result.get().credentials.accessKeyId == "ASIAIMDSEXAMPLE")
        #expect(resolution.provider?.name == "IMDSv2")
        #expect(
            resolution.skipped.map { $0.prefix { $0 != ":" } } == [
                "static", "web identity", "shared files", "container",
            ])
        #expect(all.counts == [1, 1, 3])
        #expect(all.world.refusedAddresses.isEmpty)
    }

    @Test func aConfiguredProviderThatFailsStopsTheChain() throws {
        let all = try Everything()
        let refusing = try StandInServer(replies: [
            StandInServer.xml(
                403,
                STSFixtures.error(
                    code: "AccessDenied", message: "Not authorized to perform sts:AssumeRoleWithWebIdentity"))
        ])
        defer { refusing.stop() }
        var environment = all.environment
        environment["AWS_ENDPOINT_URL_STS"] = refusing.baseURL
        let resolution = all.chain(environment, withStatic: false).resolve()
        #expect(resolution.provider?.name == "web identity")
        #expect(
            throws: CredentialsError.service(
                provider: "web identity", status: 403, code: "AccessDenied",
                message: "Not authorized to perform sts:AssumeRoleWithWebIdentity")
        ) {
            try resolution.result.get()
        }
        #expect(all.counts == [0, 0, 0], "neither the files, the agent nor IMDS were asked")
        #expect(resolution.summary.hasPrefix("no credentials: web identity: HTTP 403 AccessDenied"))
    }

    @Test func reportsEverySkippedProviderWhenNoneIsConfigured() {
        let world = TestWorld()
        let resolution = CredentialsChain.standard(
            staticCredentials: nil, staticOrigins: [], context: world.context([:])
        )
        .resolve()
        #expect(resolution.provider == nil)
        guard case .failure(.noCredentials(let skipped)) = resolution.result else {
            Issue.record("expected noCredentials, got \(resolution.result)"); return
        }
        #expect(skipped.count == 5)
        #expect(skipped.last == "IMDSv2: AWS_EC2_METADATA_DISABLED is true")
    }

    @Test func theSummaryNamesOriginsNeverSecrets() throws {
        let all = try Everything()
        let resolution = all.chain(all.environment, withStatic: false).resolve()
        let summary = resolution.summary
        #expect(summary.hasPrefix("credentials from web identity (AWS_WEB_IDENTITY_TOKEN_FILE, AWS_ROLE_ARN, STS "))
        #expect(summary.contains("expiring at \(TestWorld.start + 3600)"))
        for secret in [STSFixtures.secret, STSFixtures.sessionToken, "jwt.token.value"] {
            #expect(!summary.contains(secret))
        }
        let described = "\(try resolution.result.get().credentials)"
        #expect(!described.contains(STSFixtures.secret) && !described.contains(STSFixtures.sessionToken))
    }
}
