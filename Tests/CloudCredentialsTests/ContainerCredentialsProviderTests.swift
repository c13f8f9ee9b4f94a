import Crypto
import HTTPClient
import SigV4
import TestSupport
import Testing

@testable import CloudCredentials

/// The container provider (ECS, EKS Pod Identity) against a stand-in agent on loopback.
@Suite struct ContainerCredentialsProviderTests {
    /// EKS Pod Identity's token file in these tests.
    static let tokenPath = "/var/run/secrets/pods.eks.amazonaws.com/serviceaccount/eks-pod-identity-token"

    /// An agent answer.
    static func answer(expiration: Int64, accessKeyId: String = "ASIACONTAINEREXAMPLE") -> String {
        """
        {"AccessKeyId":"\(accessKeyId)","SecretAccessKey":"container/secret+key","Token":"container+token/==",\
        "AccountId":"123456789012","Expiration":"\(rfc3339(expiration))"}
        """
    }

    /// A provider with fast limits over `environment`.
    static func provider(_ world: TestWorld, _ environment: [String: String], retries: Int = 2, base: String? = nil)
        -> ContainerCredentialsProvider
    {
        ContainerCredentialsProvider(
            context: world.context(environment),
            options: ContainerOptions(
                relativeURIBase: base ?? "http://169.254.170.2", remote: fastRemote(retries: retries)))
    }

    @Test func fetchesFromTheFullURIWithTheTokenFile() throws {
        let world = TestWorld()
        world.write(Self.tokenPath, "pod-identity-token-1\n")
        let server = try StandInServer(replies: [
            StandInServer.json(200, Self.answer(expiration: TestWorld.start + 3600))
        ])
        defer { server.stop() }
        let environment = [
            "AWS_CONTAINER_CREDENTIALS_FULL_URI": server.baseURL + "/v1/credentials",
            "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE": Self.tokenPath,
            "AWS_CONTAINER_AUTHORIZATION_TOKEN": "the-file-wins",
        ]
        let provider = Self.provider(world, environment)
        let provided = try provider.fetch()
        #expect(provided.credentials.accessKeyId == "ASIACONTAINEREXAMPLE")
        #expect(provided.credentials.secretAccessKey == Secret("container/secret+key"))
        #expect(provided.credentials.sessionToken == Secret("container+token/=="))
        #expect(provided.credentials.expiration == TestWorld.start + 3600)
        #expect(provided.origins == ["AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"])
        world.write(Self.tokenPath, "pod-identity-token-2")
        _ = try provider.fetch()
        #expect(server.requests.map(\.target) == ["/v1/credentials", "/v1/credentials"])
        #expect(server.requests.map(\.method) == ["GET", "GET"])
        #expect(server.requests.map { $0.header("Authorization") } == ["pod-identity-token-1", "pod-identity-token-2"])
    }

    @Test func usesTheTokenVariableWithoutAFile() throws {
        let world = TestWorld()
        let server = try StandInServer(replies: [StandInServer.json(200, Self.answer(expiration: TestWorld.start + 60))]
        )
        defer { server.stop() }
        let provided = try Self.provider(
            world,
            [
                "AWS_CONTAINER_CREDENTIALS_FULL_URI": server.baseURL + "/creds",
                "AWS_CONTAINER_AUTHORIZATION_TOKEN": "Basic abc",
            ]
        ).fetch()
        #expect(provided.origins.last == "AWS_CONTAINER_AUTHORIZATION_TOKEN")
        #expect(server.requests.first?.header("Authorization") == "Basic abc")
    }

    @Test func appendsTheRelativeURIToTheAgentAddress() throws {
        let world = TestWorld()
        let server = try StandInServer(replies: [StandInServer.json(200, Self.answer(expiration: TestWorld.start + 60))]
        )
        defer { server.stop() }
        let provided = try Self.provider(
            world,
            [
                "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "/v2/credentials/6f1e-uuid",
                "AWS_CONTAINER_CREDENTIALS_FULL_URI": "http://127.0.0.1:1/ignored",
                "AWS_CONTAINER_AUTHORIZATION_TOKEN": "not-sent-to-the-ecs-agent",
            ], base: server.baseURL
        ).fetch()
        #expect(provided.origins == ["AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"])
        #expect(server.requests.map(\.target) == ["/v2/credentials/6f1e-uuid"])
        #expect(server.requests.first?.header("Authorization") == nil)
    }

    @Test(arguments: [
        "http://10.0.0.7/creds", "http://169.254.169.254/latest/meta-data/iam/security-credentials/x",
        "http://agent.internal/creds", "http://[::2]/creds",
    ])
    func refusesAHostThatIsNotAllowed(url: String) {
        let world = TestWorld()
        let provider = Self.provider(world, ["AWS_CONTAINER_CREDENTIALS_FULL_URI": url])
        do {
            _ = try provider.fetch()
            Issue.record("credentials from \(url)")
        } catch {
            guard case .invalidConfiguration("container", let reason) = error else {
                Issue.record("expected a configuration error, got \(error)")
                return
            }
            #expect(reason.contains("is not allowed over http"))
        }
        #expect(world.refusedAddresses.isEmpty, "no request was attempted")
    }

    @Test(arguments: ["token\r\nX-Injected: 1", "token\nmore", "tok\ren", "\u{7f}"])
    func refusesLineBreaksInTheToken(token: String) throws {
        let world = TestWorld()
        let server = try StandInServer(replies: [StandInServer.json(200, Self.answer(expiration: TestWorld.start + 60))]
        )
        defer { server.stop() }
        world.write(Self.tokenPath, token)
        for environment in [
            ["AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE": Self.tokenPath],
            ["AWS_CONTAINER_AUTHORIZATION_TOKEN": token],
        ] {
            var environment = environment
            environment["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = server.baseURL + "/creds"
            do {
                _ = try Self.provider(world, environment).fetch()
                Issue.record("a token with a control character was sent")
            } catch {
                guard case .invalidConfiguration("container", let reason) = error else {
                    Issue.record("expected a configuration error, got \(error)")
                    continue
                }
                #expect(reason.hasSuffix("holds a CR, LF or control character"))
                #expect(!reason.contains("token\r") && !reason.contains("more"))
            }
        }
        #expect(server.requests.isEmpty)
    }

    @Test func reportsA4xxCodeAndMessageWithoutRetrying() throws {
        let world = TestWorld()
        let server = try StandInServer(replies: [
            StandInServer.json(403, #"{"Code":"AccessDenied","Message":"Unable to get credentials for the pod"}"#)
        ])
        defer { server.stop() }
        #expect(
            throws: CredentialsError.service(
                provider: "container", status: 403, code: "AccessDenied",
                message: "Unable to get credentials for the pod")
        ) { try Self.provider(world, ["AWS_CONTAINER_CREDENTIALS_FULL_URI": server.baseURL + "/c"]).fetch() }
        #expect(server.requests.count == 1)
    }

    @Test func retriesA5xxThenSucceeds() throws {
        let world = TestWorld()
        let server = try StandInServer(replies: [
            StandInServer.json(500, #"{"Code":"InternalError","Message":"try later"}"#), .close,
            StandInServer.json(200, Self.answer(expiration: TestWorld.start + 600)),
        ])
        defer { server.stop() }
        let provided = try Self.provider(world, ["AWS_CONTAINER_CREDENTIALS_FULL_URI": server.baseURL + "/c"]).fetch()
        #expect(provided.credentials.expiration == TestWorld.start + 600)
        #expect(server.requests.count == 3)
        #expect(world.recordedSleeps.count == 2)
    }

    @Test(arguments: [
        ("{not json", "not JSON"), ("[]", "not a JSON object"),
        (#"{"AccessKeyId":"A","SecretAccessKey":"S","Token":"T"}"#, "Expiration is missing"),
        (
            #"{"AccessKeyId":7,"SecretAccessKey":"S","Token":"T","Expiration":"x"}"#,
            "AccessKeyId is a number, not a string"
        ),
        (#"{"SecretAccessKey":"S","Token":"T","Expiration":"2030-01-01T00:00:00Z"}"#, "AccessKeyId is missing"),
        (
            #"{"AccessKeyId":"A","SecretAccessKey":"S","Token":"T","Expiration":"soon"}"#,
            "Expiration is not an RFC 3339 time"
        ),
        (
            #"{"Code":"Failure","AccessKeyId":"A","SecretAccessKey":"S","Token":"T","Expiration":"2030-01-01T00:00:00Z"}"#,
            "Code is Failure, not Success"
        ),
    ])
    func refusesMalformedAnswers(body: String, reason: String) throws {
        let world = TestWorld()
        let server = try StandInServer(replies: [StandInServer.json(200, body)])
        defer { server.stop() }
        do {
            _ = try Self.provider(world, ["AWS_CONTAINER_CREDENTIALS_FULL_URI": server.baseURL + "/c"]).fetch()
            Issue.record("credentials from \(body)")
        } catch {
            guard case .malformedResponse("container", let actual) = error else {
                Issue.record("expected a malformed answer, got \(error)")
                return
            }
            #expect(actual.hasPrefix(reason), "\(actual)")
        }
        #expect(server.requests.count == 1)
    }

    @Test func refusesAnAlreadyExpiredAnswer() throws {
        let world = TestWorld()
        let server = try StandInServer(replies: [StandInServer.json(200, Self.answer(expiration: TestWorld.start))])
        defer { server.stop() }
        #expect(
            throws: CredentialsError.expired(provider: "container", expiration: TestWorld.start, now: TestWorld.start)
        ) {
            try Self.provider(world, ["AWS_CONTAINER_CREDENTIALS_FULL_URI": server.baseURL + "/c"]).fetch()
        }
    }

    @Test func timesOutOnASilentAgent() throws {
        let world = TestWorld()
        let server = try StandInServer(replies: [.hang])
        defer { server.stop() }
        do {
            _ = try Self.provider(world, ["AWS_CONTAINER_CREDENTIALS_FULL_URI": server.baseURL + "/c"], retries: 1)
                .fetch()
            Issue.record("a silent agent gave credentials")
        } catch {
            guard case .transport("container", .timeout) = error else {
                Issue.record("expected a time-out, got \(error)")
                return
            }
        }
        #expect(server.requests.count == 2)
    }

    @Test func isSkippedWithoutItsVariables() {
        #expect(throws: CredentialsError.self) { try Self.provider(TestWorld(), [:]).fetch() }
        do {
            _ = try Self.provider(TestWorld(), [:]).fetch()
        } catch {
            guard case .notConfigured = error else { Issue.record("expected not configured, got \(error)"); return }
        }
    }

    @Test(arguments: [
        ("http://127.0.0.1/creds", true), ("http://127.5.6.7:9/x", true), ("http://localhost:51679/x", true),
        ("http://LOCALHOST/x", true), ("http://[::1]/x", true), ("http://[0:0:0:0:0:0:0:1]/x", true),
        ("http://169.254.170.2/x", true), ("http://169.254.170.23/v1/credentials", true),
        ("http://[fd00:ec2::23]/v1/credentials", true), ("http://[FD00:EC2:0::23]/x", true),
        ("https://creds.example.com/x", true), ("http://creds.example.com/x", false), ("http://10.0.0.1/x", false),
        ("http://169.254.169.254/x", false), ("http://169.254.170.3/x", false), ("http://128.0.0.1/x", false),
        ("http://[::2]/x", false), ("http://[::ffff:127.0.0.1]/x", false), ("http://127.1/x", false),
        ("http://localhost.example.com/x", false), ("http://2130706433/x", false),
    ])
    func containerHostRule(url: String, allowed: Bool) throws {
        #expect(
            ContainerCredentialsProvider.isAllowed(try CredentialsURL.parse(url, provider: "test", name: "URL").address)
                == allowed, "\(url)")
    }
}
