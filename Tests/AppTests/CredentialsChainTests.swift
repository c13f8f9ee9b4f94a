import App
import AppTestSupport
import Foundation
import JSON
import TestSupport
import Testing

/// The credential chain of the application (in process, as the binary builds it): credentials from a
/// loopback container-credentials stand-in (RGW's test user's keys served as if temporary) and a loopback STS stand-in, the URL
/// lifetime clamp, the session token, client P's start-up rule and the precedence of our variables.
///
/// Every server here runs with `AWS_EC2_METADATA_DISABLED=true` (the tests' base environment) and with
/// any remote provider pointed at 127.0.0.1, so nothing can reach 169.254.169.254 or 169.254.170.2.
@Suite("Credentials: the chain in the application", .serialized)
struct CredentialsChainTests {
    /// `epochSeconds` as `YYYY-MM-DDTHH:MM:SSZ`.
    static func iso8601(_ epochSeconds: Int) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(epochSeconds)))
    }

    /// Now, in epoch seconds.
    static var now: Int { Int(Date().timeIntervalSince1970) }

    /// A container agent stand-in answering with RGW's keys, expiring `lifetime` seconds from each
    /// request, without a token (RGW's users have none); it records the requests.
    static func containerAgent(_ s3: TestEnvironment.S3, lifetime: Int) throws -> StandInServer {
        try StandInServer { _, _ in
            StandInServer.json(
                200,
                #"{"AccessKeyId":"\#(s3.accessKey)","SecretAccessKey":"\#(s3.secretKey)","Expiration":"\#(iso8601(now + lifetime))"}"#
            )
        }
    }

    /// The environment of a server with no static keys whose chain ends at `agent`.
    static func containerEnvironment(_ s3: TestEnvironment.S3, agent: StandInServer, extra: [String: String] = [:])
        -> [String: String]
    {
        var env = TestEnvironment.serverEnvironment(s3: s3).env
        env["PRESIGN_S3_ACCESS_KEY_ID"] = nil
        env["PRESIGN_S3_SECRET_ACCESS_KEY"] = nil
        env["HOME"] = Temporary.directory()
        env["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = agent.baseURL + "/v2/credentials/task-1"
        env["AWS_CONTAINER_AUTHORIZATION_TOKEN"] = "agent-token-123"
        for (k, v) in extra { env[k] = v }
        return env
    }

    /// The query parameters of `url`, decoded.
    static func query(_ url: String) throws -> [String: String] {
        let components = try #require(URLComponents(string: url))
        var pairs: [String: String] = [:]
        for item in components.queryItems ?? [] { pairs[item.name] = item.value ?? "" }
        return pairs
    }

    /// `expiresAt` of an answer, in epoch seconds.
    static func expiresAt(_ json: JSONValue) throws -> Int {
        let text = try #require(json["expiresAt"]?.stringValue)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let whole = ISO8601DateFormatter()
        return Int(try #require(formatter.date(from: text) ?? whole.date(from: text)).timeIntervalSince1970)
    }

    /// `X-Amz-Date` of a URL, in epoch seconds.
    static func signedAt(_ query: [String: String]) throws -> Int {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let text = try #require(query["X-Amz-Date"])
        return Int(try #require(formatter.date(from: text)).timeIntervalSince1970)
    }

    /// A GET on `path`, answered.
    static func get(_ server: some HTTPTarget, _ path: String) async throws -> WireResponse {
        try await server.exchange("GET", path, headers: "X-User-Id: 9\r\n")
    }

    @Test("container credentials from a loopback agent: issue, upload to RGW and confirm go through the chain")
    func containerCredentialsEndToEnd() async throws {
        let s3 = try TestEnvironment.s3()
        let agent = try Self.containerAgent(s3, lifetime: 7200)
        defer { agent.stop() }
        let server = try await InProcessApp(environment: Self.containerEnvironment(s3, agent: agent))
        defer { server.stop() }

        let line = try #require(await server.log.line(containing: #""msg":"credentials""#))
        #expect(line.contains(#""provider":"container""#), "\(line)")
        #expect(
            line.contains("AWS_CONTAINER_CREDENTIALS_FULL_URI") && line.contains("AWS_CONTAINER_AUTHORIZATION_TOKEN"))
        #expect(line.contains(#""temporary":false"#))
        #expect(!server.log.text.contains(s3.secretKey) && !server.log.text.contains("agent-token-123"))
        let asked = try #require(agent.requests.first)
        #expect(asked.method == "GET" && asked.target == "/v2/credentials/task-1")
        #expect(asked.header("Authorization") == "agent-token-123")

        // Client B: issue, PUT to RGW, confirm (the server's signed HEAD uses the same credentials).
        let uuid = UUID().uuidString
        let issued = try await ClientBFlowTests.post(server, #"{"contentType":"image/jpeg","imageKey":"\#(uuid)"}"#)
        #expect(issued.status == 200, "\(issued.text)")
        let url = try #require(try JSONValue(parsing: issued.body)["signedUrl"]?.stringValue)
        let query = try Self.query(url)
        #expect(query["X-Amz-Credential"]?.hasPrefix(s3.accessKey + "/") == true)
        #expect(query["X-Amz-Security-Token"] == nil, "the agent gave no token")
        #expect(query["X-Amz-Expires"] == "600", "two hours of credentials do not shorten a 10-minute URL")
        let target = String(url[url.range(of: s3.endpoint)!.upperBound...])
        #expect(
            try await ClientPFlowTests.put(
                s3, target: target, contentType: "image/jpeg",
                body: TestImages.jpeg(width: 4, height: 3, tail: Array(uuid.utf8)))
                == 200)
        let (status, code) = try await StorageFaultTests.confirm(server, uuid)
        #expect(status == 201, "\(code ?? "")")

        // Client P's route is served: these credentials carry no session token.
        #expect(try await Self.get(server, "/presigned-url?type=PROFILE&ext=jpg").status == 200)

        let ready = try await Self.get(server, "/readyz")
        #expect(ready.status == 200, "\(ready.text)")
        #expect(try JSONValue(parsing: ready.body)["checks"]?["credentials"]?.stringValue == "ok")
        let metrics = try await Self.get(server, "/metrics").text
        #expect(metrics.contains("presignd_credentials_valid 1"))
        #expect(metrics.contains("presignd_credentials_refresh_failures_total 0"))
        #expect(metrics.contains("presignd_credentials_expiration_timestamp_seconds 1"), "an epoch time, not 0")
    }

    @Test("a URL never outlives its credentials: X-Amz-Expires and expiresAt say the clamped lifetime; RGW takes it")
    func lifetimeClamp() async throws {
        let s3 = try TestEnvironment.s3()
        let agent = try Self.containerAgent(s3, lifetime: 300)
        defer { agent.stop() }
        let server = try await InProcessApp(environment: Self.containerEnvironment(s3, agent: agent))
        defer { server.stop() }
        let line = try #require(await server.log.line(containing: #""msg":"credentials""#))
        let expiration = try #require(
            line.range(of: #""expiration":"#).map { Int(line[$0.upperBound...].prefix { $0.isNumber }) ?? 0 })

        let r = try await Self.get(server, "/presigned-url?type=PROFILE&ext=jpg")
        #expect(r.status == 200, "\(r.text)")
        let json = try JSONValue(parsing: r.body)
        let url = try #require(json["presignedUrl"]?.stringValue)
        let query = try Self.query(url)
        let lifetime = try #require(Int(query["X-Amz-Expires"] ?? ""))
        let signedAt = try Self.signedAt(query)
        #expect(lifetime < 600 && lifetime > 0, "clamped from 600 to what the credentials have left")
        #expect(signedAt + lifetime == expiration, "the URL ends exactly when the credentials do")
        #expect(try Self.expiresAt(json) == expiration, "expiresAt tells the truth")
        // Still client P's six parameters, and RGW accepts the clamped URL.
        let rebuilt = try #require(ClientPFlowTests.rebuildLikeClientP(url))
        #expect(
            try await ClientPFlowTests.put(
                s3, target: rebuilt.path + "?" + rebuilt.query, contentType: "image/jpeg", body: [1]) == 200)
    }

    @Test("credentials with less than s3.minimumUrlLifetimeSeconds left: 503 CREDENTIALS_UNAVAILABLE, counted")
    func tooShortToIssue() async throws {
        let s3 = try TestEnvironment.s3()
        let agent = try Self.containerAgent(s3, lifetime: 30)
        defer { agent.stop() }
        // The application's clock stays at its start: the credentials keep their 30 s however slowly a
        // loaded machine runs the test (they must be too short to sign with, not expired).
        let server = try await InProcessApp(
            environment: Self.containerEnvironment(s3, agent: agent), nowMillis: InProcessApp.frozenClock())
        defer { server.stop() }
        let r = try await Self.get(server, "/presigned-url?type=PROFILE&ext=jpg")
        #expect(r.status == 503)
        #expect(r.header("Retry-After") == "10")
        let json = try JSONValue(parsing: r.body)
        #expect(json["code"]?.stringValue == "CREDENTIALS_UNAVAILABLE")
        #expect(json["message"]?.stringValue?.contains("too soon for a URL") == true, "\(r.text)")
        let metrics = try await Self.get(server, "/metrics").text
        #expect(metrics.contains("presignd_credentials_refused_urls_total 1"), "\(metrics)")
        // Still valid (they have not expired): ready.
        #expect(try await Self.get(server, "/readyz").status == 200)
    }

    /// A local STS stand-in: `AssumeRoleWithWebIdentity` answered with temporary credentials that
    /// carry a session token.
    static let stsAccessKey = "ASIASTANDIN000000001"
    static let stsSecret = "stand-in-secret-key-for-sts-0000000000000"
    static let stsToken = "FwoGZXIvYXdzEStandInSessionToken/with+slash=and=equals"

    static func sts() throws -> StandInServer {
        try StandInServer { _, _ in
            StandInServer.xml(
                200,
                """
                <AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
                  <AssumeRoleWithWebIdentityResult><Credentials>
                    <AccessKeyId>\(stsAccessKey)</AccessKeyId><SecretAccessKey>\(stsSecret)</SecretAccessKey>
                    <SessionToken>\(stsToken)</SessionToken><Expiration>\(iso8601(now + 3600))</Expiration>
                  </Credentials></AssumeRoleWithWebIdentityResult>
                </AssumeRoleWithWebIdentityResponse>
                """)
        }
    }

    /// A server environment using web identity against `sts`.
    static func webIdentityEnvironment(_ sts: StandInServer, extra: [String: String]) throws -> [String: String] {
        var env = TestEnvironment.serverEnvironment(s3: nil).env
        env["PRESIGN_S3_ACCESS_KEY_ID"] = nil
        env["PRESIGN_S3_SECRET_ACCESS_KEY"] = nil
        env["PRESIGN_S3_ENDPOINT"] = "https://s3.ap-northeast-2.amazonaws.com"
        env["PRESIGN_S3_REGION"] = "ap-northeast-2"
        let dir = Temporary.directory()
        try "header.payload.signature".write(toFile: dir + "/token", atomically: true, encoding: .utf8)
        env["HOME"] = dir
        env["AWS_WEB_IDENTITY_TOKEN_FILE"] = dir + "/token"
        env["AWS_ROLE_ARN"] = "arn:aws:iam::123456789012:role/presignd"
        env["AWS_ENDPOINT_URL_STS"] = sts.baseURL
        for (k, v) in extra { env[k] = v }
        return env
    }

    @Test("client P's routes with a session token: start-up exits 2 with the reason; warn starts and says so")
    func clientPRule() async throws {
        let sts = try Self.sts()
        defer { sts.stop() }
        // Refused at start as a configuration problem: `presignd` exits 2 with this error's line.
        let refused = Result { try InProcessApp(environment: try Self.webIdentityEnvironment(sts, extra: [:])) }
        guard case .failure(let failure) = refused, let error = failure as? AppError else {
            Issue.record("the start was not refused: \(refused)")
            return
        }
        #expect(error.exitCode == 2)
        let reason = error.description
        #expect(reason.contains("session token") && reason.contains("client P keeps only six query parameters"))
        #expect(reason.contains("GET /presigned-url, GET /v1/storage/presigned-url"))
        #expect(reason.contains("presign.temporaryCredentialsWithClientP=warn"))
        #expect(!reason.contains(Self.stsToken) && !reason.contains(Self.stsSecret))

        let warned = try await InProcessApp(
            environment: try Self.webIdentityEnvironment(
                sts, extra: ["PRESIGN_PRESIGN_TEMPORARY_CREDENTIALS_WITH_CLIENT_P": "warn"]))
        defer { warned.stop() }
        let warning = try #require(await warned.log.line(containing: "client P's uploads will fail"))
        #expect(warning.contains(#""level":"warn""#))
        let r = try await Self.get(warned, "/presigned-url?type=PROFILE&ext=jpg")
        #expect(r.status == 200)
        let url = try #require(try JSONValue(parsing: r.body)["presignedUrl"]?.stringValue)
        #expect(try Self.query(url)["X-Amz-Security-Token"] == Self.stsToken)
    }

    @Test("a URL signed with STS credentials carries X-Amz-Security-Token and matches botocore's signature")
    func sessionTokenMatchesBotocore() async throws {
        let sts = try Self.sts()
        defer { sts.stop() }
        let server = try await InProcessApp(
            environment: try Self.webIdentityEnvironment(sts, extra: ["PRESIGN_PRESIGN_SERVE_CLIENT_P": "false"]))
        defer { server.stop() }
        let asked = try #require(sts.requests.first)
        #expect(asked.form["Action"] == "AssumeRoleWithWebIdentity")
        #expect(asked.form["WebIdentityToken"] == "header.payload.signature")
        #expect(
            try await Self.get(server, "/presigned-url?type=PROFILE&ext=jpg").status == 405, "client P's GET is off")

        let uuid = UUID().uuidString
        let r = try await ClientBFlowTests.post(server, #"{"contentType":"image/jpeg","imageKey":"\#(uuid)"}"#)
        #expect(r.status == 200, "\(r.text)")
        let url = try #require(try JSONValue(parsing: r.body)["signedUrl"]?.stringValue)
        let query = try Self.query(url)
        #expect(query["X-Amz-Security-Token"] == Self.stsToken)
        #expect(query["X-Amz-Credential"]?.hasPrefix(Self.stsAccessKey + "/") == true)
        let output = try BotocorePresign.run(
            BotocorePresign.Input(
                accessKeyId: Self.stsAccessKey, secretAccessKey: Self.stsSecret,
                cases: [
                    BotocorePresign.Case(
                        method: "PUT", bucket: "uploads", key: uuid.lowercased(), region: "ap-northeast-2",
                        endpoint: "https://s3.ap-northeast-2.amazonaws.com", addressing: "path",
                        expires: Int(query["X-Amz-Expires"] ?? "") ?? 0, epochSeconds: Int64(try Self.signedAt(query)),
                        signedHeaders: ["content-type": "image/jpeg"], sessionToken: Self.stsToken)
                ]))
        let theirs = try #require(output.results.first)
        #expect(query["X-Amz-Signature"] == theirs.signature, "botocore \(output.botocore)")
        #expect(try Self.query(theirs.url) == query)
    }

    @Test("PRESIGN_S3_* win over AWS_* when both are set, and the start-up log says so without values")
    func precedence() async throws {
        let s3 = try TestEnvironment.s3()
        var env = TestEnvironment.serverEnvironment(s3: s3).env
        env["AWS_ACCESS_KEY_ID"] = "AKIAAWSENVIGNORED001"
        env["AWS_SECRET_ACCESS_KEY"] = "aws-env-secret-that-must-not-be-used-0000"
        let both = try await InProcessApp(environment: env)
        defer { both.stop() }
        let line = try #require(await both.log.line(containing: "PRESIGN_S3_* win over AWS_*"))
        #expect(line.contains(#""using":"PRESIGN_S3_ACCESS_KEY_ID, PRESIGN_S3_SECRET_ACCESS_KEY""#), "\(line)")
        #expect(line.contains(#""ignored":"AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY""#), "\(line)")
        #expect(!both.log.text.contains("AKIAAWSENVIGNORED001") && !both.log.text.contains(s3.secretKey))
        #expect(!both.log.text.contains("aws-env-secret-that-must-not-be-used"))
        let ours = try #require(
            try JSONValue(parsing: await Self.get(both, "/presigned-url?type=PROFILE&ext=jpg").body)["presignedUrl"]?
                .stringValue)
        #expect(try Self.query(ours)["X-Amz-Credential"]?.hasPrefix(s3.accessKey + "/") == true)

        // AWS_* alone: they are used, and nothing is said about precedence.
        env["PRESIGN_S3_ACCESS_KEY_ID"] = nil
        env["PRESIGN_S3_SECRET_ACCESS_KEY"] = nil
        let awsOnly = try await InProcessApp(environment: env)
        defer { awsOnly.stop() }
        let credentials = try #require(await awsOnly.log.line(containing: #""msg":"credentials""#))
        #expect(credentials.contains(#""origins":"AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY""#), "\(credentials)")
        #expect(!awsOnly.log.text.contains("win over AWS_*"))
        let theirs = try #require(
            try JSONValue(parsing: await Self.get(awsOnly, "/presigned-url?type=PROFILE&ext=jpg").body)["presignedUrl"]?
                .stringValue)
        #expect(try Self.query(theirs)["X-Amz-Credential"]?.hasPrefix("AKIAAWSENVIGNORED001/") == true)
    }

    @Test("credentials that expire with no refresh: issuing answers 503, then /readyz fails and the gauge drops")
    func expiryMakesTheServerNotReady() async throws {
        let s3 = try TestEnvironment.s3()
        // The agent answers once with credentials that live 3 s; it would fail every later refresh,
        // but the first refresh is due a minute after start (the refresher's shortest interval).
        let expiry = Self.iso8601(Self.now + 3)
        let agent = try StandInServer { index, _ in
            index == 0
                ? StandInServer.json(
                    200,
                    #"{"AccessKeyId":"\#(s3.accessKey)","SecretAccessKey":"\#(s3.secretKey)","Expiration":"\#(expiry)"}"#
                ) : StandInServer.json(500, #"{"Code":"Down","Message":"agent down"}"#)
        }
        defer { agent.stop() }
        let server = try await InProcessApp(environment: Self.containerEnvironment(s3, agent: agent))
        defer { server.stop() }
        #expect(
            try await Self.get(server, "/presigned-url?type=PROFILE&ext=jpg").status == 503, "3 s is under the minimum")
        // Wait for the expiry itself: /readyz turns 503 once the credentials are past it.
        var ready = try await Self.get(server, "/readyz")
        for _ in 0..<300 where ready.status == 200 {  // a generous minute, then fail loudly
            try await Task.sleep(for: .milliseconds(200))
            ready = try await Self.get(server, "/readyz")
        }
        #expect(ready.status == 503, "/readyz turned 503 once the credentials expired")
        let check = try JSONValue(parsing: ready.body)["checks"]?["credentials"]?.stringValue ?? ""
        #expect(check.hasPrefix("the credentials from container expired at "), "\(check)")
        #expect(try await Self.get(server, "/metrics").text.contains("presignd_credentials_valid 0"))
        #expect(agent.requests.count == 1, "no refresh was due yet")
        #expect(await server.log.line(containing: "readiness changed") != nil)
    }
}
