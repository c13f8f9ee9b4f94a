import CloudCredentials
import Crypto
import HTTPClient
import SigV4
import TestSupport
import Testing

/// STS AssumeRoleWithWebIdentity against a stand-in on loopback: the request, the answer, every
/// error path.
@Suite struct WebIdentityCredentialsProviderTests {
    /// Where the projected token lives in these tests.
    static let tokenPath = "/var/run/secrets/eks.amazonaws.com/serviceaccount/token"
    /// A token with every character class a form must encode.
    static let token = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW0ifQ.sig+with/slash=and~tilde"
    /// The role.
    static let roleArn = "arn:aws:iam::123456789012:role/presignd"

    /// A world with the token file written.
    static func world() -> TestWorld {
        let world = TestWorld()
        world.write(tokenPath, token + "\n")
        return world
    }

    /// The variables of an IRSA pod, pointed at `server`.
    static func environment(_ server: StandInServer, sessionName: String? = "presignd-test") -> [String: String] {
        var environment = [
            "AWS_WEB_IDENTITY_TOKEN_FILE": tokenPath, "AWS_ROLE_ARN": roleArn, "AWS_ENDPOINT_URL_STS": server.baseURL,
            "AWS_REGION": "us-east-1",
        ]
        environment["AWS_ROLE_SESSION_NAME"] = sessionName
        return environment
    }

    /// A provider with fast limits.
    static func provider(
        _ world: TestWorld, _ environment: [String: String], retries: Int = 2, durationSeconds: Int? = nil
    ) -> WebIdentityCredentialsProvider {
        WebIdentityCredentialsProvider(
            context: world.context(environment),
            options: WebIdentityOptions(durationSeconds: durationSeconds, remote: fastRemote(retries: retries)))
    }

    @Test func exchangesTheTokenForCredentials() throws {
        let world = Self.world()
        let expiration = TestWorld.start + 3600
        let server = try StandInServer(replies: [
            StandInServer.xml(200, STSFixtures.success(expiration: rfc3339(expiration)))
        ])
        defer { server.stop() }
        let provided = try Self.provider(world, Self.environment(server), durationSeconds: 1800).fetch()

        #expect(provided.provider == "web identity")
        #expect(provided.credentials.accessKeyId == STSFixtures.accessKeyId)
        #expect(provided.credentials.secretAccessKey == Secret(STSFixtures.secret))
        #expect(provided.credentials.sessionToken == Secret(STSFixtures.sessionToken))
        #expect(provided.credentials.expiration == expiration)
        #expect(
            provided.origins == [
                "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN", "AWS_ROLE_SESSION_NAME", "STS \(server.baseURL)",
            ])
        #expect(!provided.summary.contains(Self.token) && !provided.summary.contains("sig+with"))

        let request = try #require(server.requests.first)
        #expect(server.requests.count == 1)
        #expect(request.method == "POST" && request.target == "/")
        #expect(request.header("Content-Type") == "application/x-www-form-urlencoded; charset=utf-8")
        #expect(request.header("Authorization") == nil)
        #expect(
            request.form == [
                "Action": "AssumeRoleWithWebIdentity", "Version": "2011-06-15", "RoleArn": Self.roleArn,
                "RoleSessionName": "presignd-test", "WebIdentityToken": Self.token, "DurationSeconds": "1800",
            ])
        // RFC 3986 encoding: reserved characters percent-encoded, unreserved ones kept.
        #expect(request.body.contains("RoleArn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Fpresignd&"))
        #expect(
            request.body.contains(
                "WebIdentityToken=\(Self.token.replacingOccurrences(of: "+", with: "%2B").replacingOccurrences(of: "/", with: "%2F").replacingOccurrences(of: "=", with: "%3D"))"
            ))
        #expect(request.body.hasPrefix("Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn="))
    }

    @Test func rereadsTheTokenFileOnEveryFetch() throws {
        let world = Self.world()
        let answer = StandInServer.xml(200, STSFixtures.success(expiration: rfc3339(TestWorld.start + 3600)))
        let server = try StandInServer(replies: [answer])
        defer { server.stop() }
        let provider = Self.provider(world, Self.environment(server))
        _ = try provider.fetch()
        world.write(Self.tokenPath, "rotated.token.value")
        _ = try provider.fetch()
        #expect(server.requests.map { $0.form["WebIdentityToken"] } == [Self.token, "rotated.token.value"])
        #expect(server.requests.allSatisfy { $0.form["DurationSeconds"] == nil })
    }

    @Test func generatesOneSessionNameWhenNoneIsGiven() throws {
        let world = Self.world()
        world.setRandom(10)
        let answer = StandInServer.xml(200, STSFixtures.success(expiration: rfc3339(TestWorld.start + 3600)))
        let server = try StandInServer(replies: [answer])
        defer { server.stop() }
        let provider = Self.provider(world, Self.environment(server, sessionName: nil))
        let provided = try provider.fetch()
        world.setRandom(3)
        _ = try provider.fetch()
        #expect(
            server.requests.map { $0.form["RoleSessionName"] } == [
                "presignd-aaaaaaaaaaaaaaaa", "presignd-aaaaaaaaaaaaaaaa",
            ])
        #expect(!provided.origins.contains("AWS_ROLE_SESSION_NAME"))
    }

    @Test func choosesTheRegionalEndpoint() {
        let world = Self.world()
        func endpoint(_ environment: [String: String], _ options: WebIdentityOptions = WebIdentityOptions()) -> String {
            WebIdentityCredentialsProvider(context: world.context(environment), options: options).stsEndpoint
        }
        #expect(endpoint(["AWS_REGION": "ap-northeast-2"]) == "https://sts.ap-northeast-2.amazonaws.com")
        #expect(endpoint(["AWS_DEFAULT_REGION": "eu-west-1"]) == "https://sts.eu-west-1.amazonaws.com")
        #expect(endpoint(["AWS_REGION": "cn-north-1"]) == "https://sts.cn-north-1.amazonaws.com.cn")
        #expect(endpoint([:]) == "https://sts.amazonaws.com")
        #expect(
            endpoint(["AWS_REGION": "us-east-1", "AWS_ENDPOINT_URL_STS": "https://sts.internal"])
                == "https://sts.internal")
        #expect(
            endpoint(["AWS_REGION": "us-east-1"], WebIdentityOptions(region: "us-west-2"))
                == "https://sts.us-west-2.amazonaws.com")
        #expect(
            endpoint(["AWS_ENDPOINT_URL_STS": "https://a"], WebIdentityOptions(stsEndpoint: "https://b")) == "https://b"
        )
    }

    @Test func isSkippedWhenNotSetUp() {
        let world = Self.world()
        let provider = WebIdentityCredentialsProvider(context: world.context([:]))
        #expect(
            throws: CredentialsError.notConfigured(
                provider: "web identity", reason: "AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN are not set")
        ) {
            try provider.fetch()
        }
    }

    @Test func refusesAHalfOrBadSetUpWithoutAsking() throws {
        let world = Self.world()
        let server = try StandInServer(replies: [.respond(500)])
        defer { server.stop() }
        var environment = Self.environment(server)
        environment["AWS_ROLE_ARN"] = nil
        #expect(
            throws: CredentialsError.invalidConfiguration(
                provider: "web identity", reason: "AWS_ROLE_ARN is not set (both are needed)")
        ) {
            try Self.provider(world, environment).fetch()
        }
        environment = Self.environment(server, sessionName: "bad name!")
        #expect(throws: CredentialsError.self) { try Self.provider(world, environment).fetch() }
        environment = Self.environment(server)
        environment["AWS_ROLE_ARN"] = "presignd"
        #expect(
            throws: CredentialsError.invalidConfiguration(
                provider: "web identity", reason: "AWS_ROLE_ARN is not an ARN")
        ) {
            try Self.provider(world, environment).fetch()
        }
        environment = Self.environment(server)
        environment["AWS_WEB_IDENTITY_TOKEN_FILE"] = "/nowhere/token"
        #expect(
            throws: CredentialsError.file(
                provider: "web identity", path: "/nowhere/token", reason: "No such file or directory")
        ) {
            try Self.provider(world, environment).fetch()
        }
        world.write(Self.tokenPath, "\n")
        #expect(
            throws: CredentialsError.invalidConfiguration(
                provider: "web identity", reason: "the token file \(Self.tokenPath) is empty")
        ) {
            try Self.provider(world, Self.environment(server)).fetch()
        }
        #expect(server.requests.isEmpty)
    }

    @Test func reportsSTSErrorsWithCodeAndMessageNeverTheToken() throws {
        let world = Self.world()
        let body = STSFixtures.error(code: "InvalidIdentityToken", message: "Incorrect token audience in \(Self.token)")
        let server = try StandInServer(replies: [StandInServer.xml(400, body)])
        defer { server.stop() }
        #expect(
            throws: CredentialsError.service(
                provider: "web identity", status: 400, code: "InvalidIdentityToken",
                message: "Incorrect token audience in <redacted>")
        ) { try Self.provider(world, Self.environment(server)).fetch() }
        #expect(server.requests.count == 1, "a refused token is not retried")
        #expect(world.recordedSleeps.isEmpty)
    }

    @Test func retriesServerErrorsAndThrottlingThenSucceeds() throws {
        let world = Self.world()
        world.setRandom(1_000_000)
        let server = try StandInServer(replies: [
            .respond(503), StandInServer.xml(400, STSFixtures.error(code: "Throttling", message: "Rate exceeded")),
            StandInServer.xml(200, STSFixtures.success(expiration: rfc3339(TestWorld.start + 900))),
        ])
        defer { server.stop() }
        let provided = try Self.provider(world, Self.environment(server)).fetch()
        #expect(provided.credentials.expiration == TestWorld.start + 900)
        #expect(server.requests.count == 3)
        #expect(world.recordedSleeps == [100, 200], "full-jitter backoff at its caps, from the injected random")
    }

    @Test func givesUpAfterTheRetries() throws {
        let world = Self.world()
        let server = try StandInServer(replies: [
            StandInServer.xml(500, STSFixtures.error(code: "InternalFailure", message: "x"))
        ])
        defer { server.stop() }
        #expect(
            throws: CredentialsError.service(
                provider: "web identity", status: 500, code: "InternalFailure", message: "x")
        ) {
            try Self.provider(world, Self.environment(server), retries: 2).fetch()
        }
        #expect(server.requests.count == 3)
    }

    /// Malformed 200 answers and the reason each gives (by index: the bodies are long to print).
    static let malformed: [(body: String, reason: String)] = [
        ("<html>not sts</html>", "not an AssumeRoleWithWebIdentityResponse document"),
        ("", "not an AssumeRoleWithWebIdentityResponse document"),
        (
            "<AssumeRoleWithWebIdentityResponse><Credentials/></AssumeRoleWithWebIdentityResponse>",
            "no AssumeRoleWithWebIdentityResult/Credentials element"
        ),
        (STSFixtures.success(expiration: "2026-11-29 09:59:31"), "Expiration is not an RFC 3339 time"),
        (STSFixtures.success(expiration: rfc3339(TestWorld.start + 60), token: ""), "the session token is missing"),
        (
            STSFixtures.success(expiration: rfc3339(TestWorld.start + 60), accessKeyId: "AS/IA"),
            "AccessKeyId is not 1 to 128 visible characters"
        ),
    ]

    @Test(arguments: malformed.indices)
    func refusesMalformedAnswers(index: Int) throws {
        let (body, reason) = Self.malformed[index]
        let world = Self.world()
        let server = try StandInServer(replies: [StandInServer.xml(200, body)])
        defer { server.stop() }
        #expect(throws: CredentialsError.malformedResponse(provider: "web identity", reason: reason)) {
            try Self.provider(world, Self.environment(server)).fetch()
        }
        #expect(server.requests.count == 1, "a malformed answer is not retried")
    }

    @Test func refusesAnAlreadyExpiredAnswer() throws {
        let world = Self.world()
        let expiration = TestWorld.start - 5
        let server = try StandInServer(replies: [
            StandInServer.xml(200, STSFixtures.success(expiration: rfc3339(expiration)))
        ])
        defer { server.stop() }
        #expect(
            throws: CredentialsError.expired(provider: "web identity", expiration: expiration, now: TestWorld.start)
        ) {
            try Self.provider(world, Self.environment(server)).fetch()
        }
    }

    @Test func timesOutOnASilentService() throws {
        let world = Self.world()
        let server = try StandInServer(replies: [.hang])
        defer { server.stop() }
        do {
            _ = try Self.provider(world, Self.environment(server), retries: 1).fetch()
            Issue.record("a silent STS gave credentials")
        } catch {
            guard case .transport("web identity", .timeout) = error else {
                Issue.record("expected a time-out, got \(error)")
                return
            }
        }
        #expect(server.requests.count == 2, "one retry after the time-out")
    }
}
