import CloudCredentials
import Crypto
import HTTPClient
import SigV4
import Synchronization
import TestSupport
import Testing

/// IMDSv2 against a stand-in metadata service on loopback.
@Suite struct InstanceMetadataCredentialsProviderTests {
    /// The role the stand-in's instance has.
    static let role = "presignd-instance-role"

    /// The instance profile's credentials document.
    static func document(expiration: Int64, code: String = "Success") -> String {
        """
        {
          "Code" : "\(code)",
          "LastUpdated" : "\(rfc3339(TestWorld.start - 600))",
          "Type" : "AWS-HMAC",
          "AccessKeyId" : "ASIAIMDSEXAMPLE",
          "SecretAccessKey" : "imds/secret+key",
          "Token" : "imds+session/token==",
          "Expiration" : "\(rfc3339(expiration))"
        }
        """
    }

    /// A metadata service: tokens `token-1`, `token-2`, ...; `credentials` answers the role's
    /// document request (given how many such requests came before); a request with a token other
    /// than one of `valid` tokens gets 401.
    static func service(
        valid: Set<String>? = nil, tokenReply: StandInServer.Reply? = nil,
        credentials: @escaping @Sendable (Int) -> StandInServer.Reply = { _ in
            StandInServer.json(200, document(expiration: TestWorld.start + 6 * 3600))
        }
    ) throws -> StandInServer {
        let counters = Mutex((tokens: 0, documents: 0))
        return try StandInServer { _, request in
            if request.method == "PUT" && request.target == "/latest/api/token" {
                if let tokenReply { return tokenReply }
                guard request.header("X-aws-ec2-metadata-token-ttl-seconds") == "21600" else { return .respond(400) }
                let number = counters.withLock { counters in
                    counters.tokens += 1
                    return counters.tokens
                }
                return .respond(200, body: "token-\(number)")
            }
            guard request.method == "GET" else { return .respond(405) }
            if let valid {
                guard let token = request.header("X-aws-ec2-metadata-token"), valid.contains(token) else {
                    return .respond(401)
                }
            }
            switch request.target {
            case "/latest/meta-data/iam/security-credentials/":
                return .respond(200, body: role + "\n")
            case "/latest/meta-data/iam/security-credentials/" + role:
                let before = counters.withLock { counters in
                    counters.documents += 1
                    return counters.documents - 1
                }
                return credentials(before)
            default:
                return .respond(404)
            }
        }
    }

    /// A provider with fast limits pointed at `server` through the endpoint variable.
    static func provider(
        _ world: TestWorld, _ server: StandInServer, retries: Int = 1, allowV1: Bool = false,
        extra: [String: String] = [:]
    ) -> InstanceMetadataCredentialsProvider {
        var environment = ["AWS_EC2_METADATA_SERVICE_ENDPOINT": server.baseURL]
        environment.merge(extra) { _, new in new }
        return InstanceMetadataCredentialsProvider(
            context: world.context(environment),
            options: InstanceMetadataOptions(allowV1Fallback: allowV1, remote: fastRemote(retries: retries)))
    }

    @Test func fetchesTheInstanceProfilesCredentialsWithASessionToken() throws {
        let world = TestWorld()
        let server = try Self.service(valid: ["token-1"])
        defer { server.stop() }
        let provided = try Self.provider(world, server).fetch()
        #expect(provided.credentials.accessKeyId == "ASIAIMDSEXAMPLE")
        #expect(provided.credentials.secretAccessKey == Secret("imds/secret+key"))
        #expect(provided.credentials.sessionToken == Secret("imds+session/token=="))
        #expect(provided.credentials.expiration == TestWorld.start + 6 * 3600)
        #expect(provided.origins == ["IMDS \(server.baseURL)", "role \(Self.role)"])
        #expect(
            server.requests.map { "\($0.method) \($0.target)" } == [
                "PUT /latest/api/token", "GET /latest/meta-data/iam/security-credentials/",
                "GET /latest/meta-data/iam/security-credentials/\(Self.role)",
            ])
        #expect(server.requests[0].header("X-aws-ec2-metadata-token-ttl-seconds") == "21600")
        #expect(server.requests[0].header("X-aws-ec2-metadata-token") == nil)
        #expect(server.requests.dropFirst().allSatisfy { $0.header("X-aws-ec2-metadata-token") == "token-1" })
    }

    @Test func keepsTheSessionTokenAcrossFetchesUntilItsTTLEnds() throws {
        let world = TestWorld()
        let server = try Self.service()
        defer { server.stop() }
        let provider = Self.provider(world, server)
        _ = try provider.fetch()
        _ = try provider.fetch()
        #expect(server.requests.filter { $0.method == "PUT" }.count == 1)
        world.advance(21_600 - 60)
        _ = try provider.fetch()
        #expect(server.requests.filter { $0.method == "PUT" }.count == 2)
        #expect(server.requests.last?.header("X-aws-ec2-metadata-token") == "token-2")
    }

    @Test func a401FetchesANewTokenOnce() throws {
        let world = TestWorld()
        // token-1 is stale for the service; token-2 works.
        let server = try Self.service(valid: ["token-2"])
        defer { server.stop() }
        let provided = try Self.provider(world, server).fetch()
        #expect(provided.credentials.accessKeyId == "ASIAIMDSEXAMPLE")
        #expect(
            server.requests.map { "\($0.method) \($0.header("X-aws-ec2-metadata-token") ?? "-")" } == [
                "PUT -", "GET token-1", "PUT -", "GET token-2", "GET token-2",
            ])
    }

    @Test func aSecond401IsAnError() throws {
        let world = TestWorld()
        let server = try Self.service(valid: [])
        defer { server.stop() }
        #expect(throws: CredentialsError.service(provider: "IMDSv2", status: 401, code: nil, message: nil)) {
            try Self.provider(world, server, retries: 0).fetch()
        }
        #expect(server.requests.map(\.method) == ["PUT", "GET", "PUT", "GET"])
    }

    @Test func isSkippedWhenDisabled() throws {
        let world = TestWorld()
        let server = try Self.service()
        defer { server.stop() }
        for value in ["true", "TRUE", "True"] {
            #expect(
                throws: CredentialsError.notConfigured(provider: "IMDSv2", reason: "AWS_EC2_METADATA_DISABLED is true")
            ) {
                try Self.provider(world, server, extra: ["AWS_EC2_METADATA_DISABLED": value]).fetch()
            }
        }
        #expect(server.requests.isEmpty)
        _ = try Self.provider(world, server, extra: ["AWS_EC2_METADATA_DISABLED": "false"]).fetch()
        #expect(server.requests.count == 3)
    }

    @Test func choosesItsEndpoint() {
        let world = TestWorld()
        func endpoint(_ environment: [String: String], _ options: InstanceMetadataOptions = InstanceMetadataOptions())
            -> String
        {
            InstanceMetadataCredentialsProvider(context: world.context(environment), options: options).endpoint
        }
        #expect(endpoint(["AWS_EC2_METADATA_DISABLED": "true"]) == "http://169.254.169.254")
        #expect(endpoint(["AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE": "IPv6"]) == "http://[fd00:ec2::254]")
        #expect(endpoint(["AWS_EC2_METADATA_SERVICE_ENDPOINT": "http://127.0.0.1:1"]) == "http://127.0.0.1:1")
        #expect(endpoint([:], InstanceMetadataOptions(endpoint: "http://127.0.0.2:2")) == "http://127.0.0.2:2")
    }

    @Test func refusesIMDSv1UnlessAllowed() throws {
        let world = TestWorld()
        let server = try Self.service(tokenReply: .respond(403))
        defer { server.stop() }
        #expect(
            throws: CredentialsError.service(
                provider: "IMDSv2", status: 403, code: nil,
                message: "the session token request (PUT /latest/api/token) was refused")
        ) { try Self.provider(world, server).fetch() }
        #expect(server.requests.map(\.method) == ["PUT"])

        let provided = try Self.provider(world, server, allowV1: true).fetch()
        #expect(provided.credentials.accessKeyId == "ASIAIMDSEXAMPLE")
        #expect(server.requests.dropFirst(2).allSatisfy { $0.header("X-aws-ec2-metadata-token") == nil })
    }

    @Test func reportsAnInstanceWithoutARole() throws {
        let world = TestWorld()
        let server = try StandInServer { _, request in
            request.method == "PUT" ? .respond(200, body: "t") : .respond(404, body: "<html>404</html>")
        }
        defer { server.stop() }
        #expect(
            throws: CredentialsError.service(
                provider: "IMDSv2", status: 404, code: nil, message: "no IAM role is attached to this instance")
        ) { try Self.provider(world, server).fetch() }
    }

    @Test func retriesA5xxThenSucceeds() throws {
        let world = TestWorld()
        let server = try Self.service { before in
            before == 0 ? .respond(503) : StandInServer.json(200, Self.document(expiration: TestWorld.start + 3600))
        }
        defer { server.stop() }
        let provided = try Self.provider(world, server, retries: 1).fetch()
        #expect(provided.credentials.expiration == TestWorld.start + 3600)
        #expect(world.recordedSleeps.count == 1)
        #expect(server.requests.filter { $0.method == "PUT" }.count == 1, "the token is kept for the retry")
    }

    @Test(arguments: [
        ("{", "not JSON"),
        (
            #"{"Code":"Success","AccessKeyId":"A","SecretAccessKey":"S","Expiration":"2030-01-01T00:00:00Z"}"#,
            "the session token is missing"
        ),
        (
            #"{"AccessKeyId":"A","SecretAccessKey":"S","Token":"T","Expiration":"2030-01-01T00:00:00Z"}"#,
            "Code is missing, not Success"
        ),
    ])
    func refusesMalformedDocuments(body: String, reason: String) throws {
        let world = TestWorld()
        let server = try Self.service { _ in StandInServer.json(200, body) }
        defer { server.stop() }
        do {
            _ = try Self.provider(world, server).fetch()
            Issue.record("credentials from \(body)")
        } catch {
            guard case .malformedResponse("IMDSv2", let actual) = error else {
                Issue.record("expected a malformed answer, got \(error)"); return
            }
            #expect(actual.hasPrefix(reason), "\(actual)")
        }
    }

    @Test func refusesAFailureCodeAndAnExpiredDocument() throws {
        let world = TestWorld()
        let failing = try Self.service { _ in
            StandInServer.json(
                200, Self.document(expiration: TestWorld.start + 60, code: "AssumeRoleUnauthorizedAccess"))
        }
        defer { failing.stop() }
        #expect(
            throws: CredentialsError.malformedResponse(
                provider: "IMDSv2", reason: "Code is AssumeRoleUnauthorizedAccess, not Success")
        ) { try Self.provider(world, failing).fetch() }
        let expired = try Self.service { _ in StandInServer.json(200, Self.document(expiration: TestWorld.start - 1)) }
        defer { expired.stop() }
        #expect(
            throws: CredentialsError.expired(provider: "IMDSv2", expiration: TestWorld.start - 1, now: TestWorld.start)
        ) {
            try Self.provider(world, expired).fetch()
        }
    }

    /// Off EC2 the metadata address drops packets (a time-out) or refuses: botocore's
    /// InstanceMetadataProvider then gives no credentials rather than an error, and so does this one,
    /// so that a chain with nothing else set up ends in "no credentials" (exit 2 at start).
    @Test func aSilentServiceMeansNotOnEC2() throws {
        let world = TestWorld()
        let server = try StandInServer(replies: [.hang])
        defer { server.stop() }
        do {
            _ = try Self.provider(world, server, retries: 1).fetch()
            Issue.record("a silent IMDS gave credentials")
        } catch {
            guard case .notConfigured("IMDSv2", let reason) = error else {
                Issue.record("expected not configured, got \(error)"); return
            }
            #expect(
                reason.hasPrefix("no instance metadata service answered at \(server.baseURL) (not on EC2?): timeout"))
        }
        #expect(server.requests.map(\.method) == ["PUT", "PUT"])
    }

    @Test func aRefusedConnectionMeansNotOnEC2() throws {
        let world = TestWorld()
        let server = try StandInServer(replies: [.close])
        let base = server.baseURL
        server.stop()  // nothing listens there now
        let provider = InstanceMetadataCredentialsProvider(
            context: world.context(["AWS_EC2_METADATA_SERVICE_ENDPOINT": base]),
            options: InstanceMetadataOptions(remote: fastRemote(retries: 1)))
        do {
            _ = try provider.fetch()
            Issue.record("a closed port gave credentials")
        } catch {
            guard case .notConfigured("IMDSv2", let reason) = error else {
                Issue.record("expected not configured, got \(error)"); return
            }
            #expect(reason.contains("(not on EC2?): connection failed"), "\(reason)")
        }
    }

    @Test func aServiceThatGaveATokenAndThenStopsAnsweringIsAnError() throws {
        let world = TestWorld()
        let server = try StandInServer { index, _ in index == 0 ? .respond(200, body: "t") : .hang }
        defer { server.stop() }
        do {
            _ = try Self.provider(world, server, retries: 0).fetch()
            Issue.record("a silent IMDS gave credentials")
        } catch {
            guard case .transport("IMDSv2", .timeout) = error else {
                Issue.record("expected a time-out, got \(error)"); return
            }
        }
    }
}
