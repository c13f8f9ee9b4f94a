import AppTestSupport
import Foundation
import JSON
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The real binary: configuration handling, logs, socket-level rules and graceful shutdown.
@Suite("presignd binary", .heavy)
struct BinaryTests {
    @Test("--version, --help and --check-config; secrets never printed")
    func flags() async throws {
        let (env, _) = TestEnvironment.serverEnvironment(s3: nil)
        let v = try ServerProcess(environment: env, arguments: ["--version"], expectListening: false)
        #expect(await v.exit() == 0)
        #expect(v.stdout.hasPrefix("presignd "))
        let h = try ServerProcess(environment: env, arguments: ["--help"], expectListening: false)
        #expect(await h.exit() == 0)
        #expect(h.stdout.contains("--config"))
        let c = try ServerProcess(
            environment: env, arguments: ["--check-config", "--port", "9999"], expectListening: false)
        #expect(await c.exit() == 0)
        let dump = try JSONValue(parsing: Array(c.stdout.utf8))
        #expect(dump["server"]?["port"]?.intValue == 9999)
        #expect(!c.stdout.contains("wJalrXUtnFEMI"))
        #expect(c.stdout.contains("<redacted>"))
    }

    @Test("three invalid values are all reported with their key paths, exit 2")
    func invalidConfig() async throws {
        let (env0, _) = TestEnvironment.serverEnvironment(s3: nil)
        var env = env0
        env["PRESIGN_SERVER_PORT"] = "70000"
        env["PRESIGN_S3_ADDRESSING"] = "sideways"
        env["PRESIGN_PRESIGN_EXPIRES_SECONDS"] = "700000"
        let p = try ServerProcess(environment: env, expectListening: false)
        #expect(await p.exit() == 2)
        let err = p.stderr
        #expect(err.contains("server.port"))
        #expect(err.contains("s3.addressing"))
        #expect(err.contains("presign.expiresSeconds"))
    }

    /// The lines of `process`'s standard error that report configuration problems.
    static func configurationProblems(_ process: ServerProcess) -> [Substring] {
        process.stderr.split(separator: "\n").filter { $0.hasPrefix("presignd: configuration: ") }
    }

    @Test(
        "missing S3 credentials: --check-config and a start both exit 2 with the same problems (key paths, variables)"
    )
    func missingCredentials() async throws {
        let (base, _) = TestEnvironment.serverEnvironment(s3: nil)
        var noSecret = base
        noSecret["PRESIGN_S3_SECRET_ACCESS_KEY"] = nil
        var staticOnly = noSecret
        staticOnly["PRESIGN_S3_ACCESS_KEY_ID"] = nil
        staticOnly["PRESIGN_S3_CREDENTIAL_SOURCES"] = "environment"
        for (env, expected) in [
            (noSecret, ["s3.secretAccessKey: is required with s3.accessKeyId"]),
            (staticOnly, ["s3.accessKeyId: is required", "s3.secretAccessKey: is required"]),
        ] {
            let check = try ServerProcess(environment: env, arguments: ["--check-config"], expectListening: false)
            #expect(await check.exit() == 2)
            let start = try ServerProcess(environment: env, expectListening: false)
            #expect(await start.exit() == 2, "start-up refuses it as configuration, not as a part failing (1)")
            let checked = Self.configurationProblems(check)
            #expect(checked.count == expected.count, "\(check.stderr)")
            #expect(checked == Self.configurationProblems(start), "\(start.stderr)")
            for (line, start) in zip(checked, expected) {
                #expect(line.hasPrefix("presignd: configuration: " + start), "\(line)")
            }
            #expect(checked.last?.contains("PRESIGN_S3_SECRET_ACCESS_KEY or PRESIGN_S3_SECRET_ACCESS_KEY_FILE") == true)
            #expect(check.stdout.isEmpty, "no configuration is printed as if it were valid")
        }
    }

    @Test("no static keys and no provider configured: --check-config notes the chain, a start exits 2 naming each")
    func noCredentialSource() async throws {
        var env = TestEnvironment.serverEnvironment(s3: nil).env
        env["PRESIGN_S3_ACCESS_KEY_ID"] = nil
        env["PRESIGN_S3_SECRET_ACCESS_KEY"] = nil
        env["HOME"] = Temporary.directory()  // no ~/.aws files there
        let check = try ServerProcess(environment: env, arguments: ["--check-config"], expectListening: false)
        #expect(await check.exit() == 0)
        #expect(
            check.stderr.contains(
                "presignd: note: no static S3 keys: at start presignd asks, in order, webIdentity, sharedFiles, container, imds"
            ), "\(check.stderr)")
        let start = try ServerProcess(environment: env, expectListening: false)
        #expect(await start.exit() == 2)
        let line = try #require(await start.line(containing: #""msg":"cannot start""#))
        for skipped in [
            "static: no PRESIGN_S3_ACCESS_KEY_ID",
            "web identity: AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN are not set",
            "container: AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "IMDSv2: AWS_EC2_METADATA_DISABLED is true",
        ] {
            #expect(line.contains(skipped), "\(line)")
        }
    }

    @Test("one user-id rule: X-User-Id and auth.devDefaultUserId accept and refuse the same values")
    func userIdRule() async throws {
        let (env, _) = TestEnvironment.serverEnvironment(s3: nil)
        // The header against the application in process; the setting against the binary's check.
        let server = try await InProcessApp(environment: env)
        defer { server.stop() }
        let cases: [(String, Bool)] = [
            ("alice", true), ("user_42", true), ("a-b", true), (String(repeating: "a", count: 64), true),
            ("Alice", false), ("ALICE", false), ("a.b", false), ("a/b", false), ("a+b", false),
            (String(repeating: "a", count: 65), false),
        ]
        for (value, valid) in cases {
            let r = try await server.exchange(
                "GET", "/presigned-url?type=PROFILE&ext=jpg", headers: "X-User-Id: \(value)\r\n")
            #expect(r.status == (valid ? 200 : 400), "X-User-Id: \(value) -> \(r.status) \(r.text)")
            if valid {
                #expect(r.text.contains("/\(value)/"), "the id is used as given, in the key")
            } else {
                #expect(
                    r.text == #"{"code":"INVALID_USER","message":"X-User-Id must be 1-64 characters of a-z 0-9 _ -"}"#)
            }

            var withDefault = env
            withDefault["PRESIGN_AUTH_DEV_DEFAULT_USER_ID"] = value
            let check = try ServerProcess(
                environment: withDefault, arguments: ["--check-config"], expectListening: false)
            #expect(await check.exit() == (valid ? 0 : 2), "auth.devDefaultUserId=\(value): \(check.stderr)")
            if !valid {
                #expect(
                    check.stderr.contains("auth.devDefaultUserId: must be 1-64 characters of a-z 0-9 _ -"),
                    "\(check.stderr)")
            }
        }
    }

    @Test("one JSON access-log line per request, with the route template and never the query")
    func accessLog() async throws {
        let (env, _) = TestEnvironment.serverEnvironment(s3: nil)
        let server = try await ServerProcess(environment: env)
        let r = try await server.exchange(
            "GET /presigned-url?type=PROFILE&ext=jpg HTTP/1.1\r\nHost: a\r\nX-Request-Id: trace-1\r\nAuthorization: Bearer sekrit-token\r\n\r\n"
        )
        #expect(r.header("X-Request-Id") == "trace-1")
        let url = try JSONValue(parsing: r.body)["presignedUrl"]?.stringValue ?? ""
        let signature = String(url.suffix(64))
        server.stop()
        let lines = server.stderr.split(separator: "\n").filter { $0.contains(#""requestId":"trace-1""#) }
        #expect(lines.count == 1)
        let line = try JSONValue(parsing: String(lines[0]))
        #expect(line["route"]?.stringValue == "/presigned-url")
        #expect(line["status"]?.intValue == 200)
        #expect(line["method"]?.stringValue == "GET")
        #expect(line["durationUs"]?.intValue != nil)
        #expect(line["peer"]?.stringValue?.hasPrefix("127.0.0.1:") == true)
        #expect(line["userId"]?.stringValue == "1", "the caller (dev mode's default user), never the token")
        #expect(!server.stderr.contains("PROFILE"))
        #expect(!server.stderr.contains(signature))
        #expect(!server.stderr.contains("sekrit-token"))
    }

    @Test("healthz, readyz (database through the worker pool) and metrics")
    func operations() async throws {
        let (env, _) = TestEnvironment.serverEnvironment(s3: nil)
        let server = try await ServerProcess(environment: env)
        defer { server.stop() }
        let c = try RawClient(port: server.port)
        c.send("GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(c.readResponse()?.text == #"{"status":"ok"}"#)
        c.send("GET /readyz HTTP/1.1\r\nHost: a\r\n\r\n")
        let ready = try #require(c.readResponse())
        let json = try JSONValue(parsing: ready.body)
        #expect(json["checks"]?["database"]?.stringValue == "ok")
        c.send("GET /metrics HTTP/1.1\r\nHost: a\r\n\r\n")
        let m = try #require(c.readResponse())
        #expect(m.text.contains(#"presignd_http_requests_total{route="/healthz",method="GET",status="200"} 1"#))
        #expect(m.text.contains("presignd_http_request_duration_seconds_bucket"))
        #expect(m.text.contains("presignd_open_connections 1"))
        #expect(m.text.contains("presignd_intents_stored_total 0"))
    }

    @Test("smuggling attempts against the binary are answered and closed with no desync")
    func smuggling() async throws {
        let (env, _) = TestEnvironment.serverEnvironment(s3: nil)
        let server = try await ServerProcess(environment: env)
        defer { server.stop() }
        for attack in [
            "POST /presigned-url HTTP/1.1\r\nHost: a\r\nContent-Length: 40\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /healthz HTTP/1.1\r\nHost: a\r\n\r\n",
            "POST /presigned-url HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nContent-Length: 36\r\n\r\n{}GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n",
            "POST /presigned-url HTTP/1.1\r\nHost: a\r\nContent-Length: 0x2\r\n\r\n{}",
            "POST /presigned-url HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: xchunked\r\n\r\n0\r\n\r\n",
        ] {
            let c = try RawClient(port: server.port)
            c.send(attack)
            let r = try #require(c.readResponse())
            #expect(r.status == 400 || r.status == 501)
            #expect(c.isClosedByPeer())
        }
    }

    @Test("a client trickling headers is closed at the header deadline; others are served meanwhile")
    func slowHeaders() throws {
        let (env, _) = TestEnvironment.serverEnvironment(s3: nil, extra: ["PRESIGN_SERVER_HEADER_TIMEOUT_MS": "1000"])
        let server = try ServerProcess(environment: env)
        defer { server.stop() }
        let slow = try RawClient(port: server.port, timeoutMs: 250)
        let start = Date()
        var closedAt: Double?
        for b in Array("GET /healthz HTTP/1.1\r\nHost: a\r\nX-A: ".utf8)
            + Array(repeating: UInt8(ascii: "b"), count: 40)
        {
            slow.send([b])
            let fresh = try RawClient(port: server.port)
            fresh.send("GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n")
            #expect(fresh.readResponse()?.status == 200)
            if slow.isClosedByPeer() {
                closedAt = Date().timeIntervalSince(start)
                break
            }
        }
        // Never before the deadline; no upper bound (the loop's byte count bounds the wait, and a loaded
        // machine only makes the close later).
        let t = try #require(closedAt)
        #expect(t >= 0.9, "closed after \(t) s")
    }

    @Test("SIGTERM: an in-flight request (body still arriving) is finished, then exit 0")
    func gracefulShutdown() async throws {
        // The body's deadline far beyond the test's steps, however slowly a loaded machine runs them: the
        // answer must be the drained request's, not a 408.
        let (env, _) = TestEnvironment.serverEnvironment(
            s3: nil, extra: ["PRESIGN_SERVER_BODY_TIMEOUT_MS": "120000"])
        let server = try await ServerProcess(environment: env)
        let c = try RawClient(port: server.port, timeoutMs: 30_000)
        let idle = try RawClient(port: server.port, timeoutMs: 30_000)
        idle.send("GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(idle.readResponse()?.status == 200)
        let body = #"{"contentType":"image/jpeg","imageKey":"0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6a"}"#
        let baseline = try await Self.requestsInFlight(server)
        c.send(
            "POST /presigned-url HTTP/1.1\r\nHost: a\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body.prefix(10))")
        // Wait until the server has the request in flight (its head read, the body arriving), as its
        // metrics say, instead of sleeping and assuming it. The metrics request may count itself, so
        // the gauge is compared with what it read before the POST was sent.
        let inFlight = try await eventually(within: 30, pollMs: 10) {
            try await Self.requestsInFlight(server) > baseline
        }
        #expect(inFlight, "the POST never showed as in flight")
        server.signal(SIGTERM)
        #expect(await server.line(containing: #""msg":"draining""#) != nil)
        #expect(idle.isClosedByPeer(), "idle connections are closed at once")
        c.send(String(body.dropFirst(10)))
        let r = try #require(c.readResponse())
        #expect(r.status == 200)
        #expect(r.header("Connection") == "close")
        #expect(await server.exit() == 0)
        #expect(server.stderr.contains(#""msg":"stopped""#))
    }

    /// The `presignd_requests_in_flight` gauge as one fresh request reads it.
    static func requestsInFlight(_ server: ServerProcess) async throws -> Int {
        guard let value = try await server.metric("presignd_requests_in_flight") else {
            throw TestFailure("no presignd_requests_in_flight in /metrics")
        }
        return value
    }

    @Test("server.metricsPort serves /metrics on its own port only")
    func metricsPort() async throws {
        let probe = try LoopbackListener.freePort()
        let (env, _) = TestEnvironment.serverEnvironment(s3: nil, extra: ["PRESIGN_SERVER_METRICS_PORT": String(probe)])
        let server = try await ServerProcess(environment: env)
        defer { server.stop() }
        let main = try RawClient(port: server.port)
        main.send("GET /metrics HTTP/1.1\r\nHost: a\r\n\r\nGET /healthz HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(main.readResponse()?.status == 404)
        #expect(main.readResponse()?.status == 200)
        let ops = try RawClient(port: probe)
        ops.send("GET /metrics HTTP/1.1\r\nHost: a\r\n\r\n")
        let m = try #require(ops.readResponse())
        #expect(m.status == 200)
        #expect(m.text.contains(#"presignd_http_requests_total{route="/healthz",method="GET",status="200"} 1"#))
        ops.send("GET /presigned-url?type=PROFILE&ext=jpg HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(ops.readResponse()?.status == 404, "the API is not on the metrics port")
    }

    @Test("--check-config shows a preset's effective values and says client P's routes are path-style")
    func checkConfigNotes() async throws {
        let (env, _) = TestEnvironment.serverEnvironment(
            s3: nil, extra: ["PRESIGN_S3_PROVIDER": "aws", "PRESIGN_S3_REGION": "ap-northeast-2"])
        var noEndpoint = env
        noEndpoint["PRESIGN_S3_ENDPOINT"] = nil
        let check = try ServerProcess(environment: noEndpoint, arguments: ["--check-config"], expectListening: false)
        #expect(await check.exit() == 0)
        let dump = try JSONValue(parsing: Array(check.stdout.utf8))
        #expect(dump["s3"]?["endpoint"]?.stringValue == "https://s3.ap-northeast-2.amazonaws.com")
        #expect(dump["s3"]?["addressing"]?.stringValue == "virtual")
        #expect(dump["s3"]?["provider"]?.stringValue == "aws")
        #expect(
            check.stderr.contains("presignd: note: s3.provider aws: endpoint https://s3.ap-northeast-2.amazonaws.com"))
        #expect(
            check.stderr.contains(
                "presignd: note: GET /presigned-url and GET /v1/storage/presigned-url serve client P's contract: their URLs are always path-style"
            ), "\(check.stderr)")
    }

    @Test(
        "presignd explain exits 0 when nothing differs, 1 when something does, 2 on usage; explain.enabled needs an admin key (exit 2)"
    )
    func explainExits() async throws {
        let (env, _) = TestEnvironment.serverEnvironment(s3: nil)
        // A URL this configuration signs, issued by the application in process (explain asks storage
        // nothing without an error XML, so the dead endpoint is never called).
        let app = try await InProcessApp(environment: env)
        defer { app.stop() }
        let issued = try await ClientBFlowTests.post(
            app, #"{"contentType":"image/jpeg","imageKey":"\#(UUID().uuidString)"}"#)
        let url = try #require(try JSONValue(parsing: issued.body)["signedUrl"]?.stringValue, "\(issued.text)")
        func explain(_ arguments: [String], _ environment: [String: String] = env) async throws -> (
            Int32?, ServerProcess
        ) {
            let p = try ServerProcess(
                environment: environment, arguments: ["explain"] + arguments, expectListening: false)
            return (await p.exit(), p)
        }
        let (same, sameRun) = try await explain([url, "--method", "PUT", "--header", "Content-Type: image/jpeg"])
        #expect(same == 0, "\(sameRun.stdout) \(sameRun.stderr)")
        #expect(try JSONValue(parsing: Array(sameRun.stdout.utf8))["differences"]?.boolValue == false)
        let (other, otherRun) = try await explain([url, "--method", "PUT", "--header", "Content-Type: image/png"])
        #expect(other == 1, "\(otherRun.stdout) \(otherRun.stderr)")
        #expect(try JSONValue(parsing: Array(otherRun.stdout.utf8))["differences"]?.boolValue == true)
        // Usage: no URL.
        #expect(try await explain([]).0 == 2)
        // explain.enabled without an admin API key is a configuration error, for a check and a start.
        var enabled = env
        enabled["PRESIGN_EXPLAIN_ENABLED"] = "true"
        let check = try ServerProcess(environment: enabled, arguments: ["--check-config"], expectListening: false)
        #expect(await check.exit() == 2)
        #expect(check.stderr.contains("explain.enabled"))
        #expect(try await explain([], enabled).0 == 2)
    }

    @Test("s3.startupCheck through the binary: warn writes its line before listening; fail exits 1 and never listens")
    func startupCheckExits() async throws {
        let s3 = try TestEnvironment.s3()
        let bucket = "no-such-bucket-" + UUID().uuidString.prefix(8).lowercased()
        var (env, _) = TestEnvironment.serverEnvironment(s3: s3, extra: ["PRESIGN_S3_BUCKET": bucket])
        let warned = try await ServerProcess(environment: env)
        defer { warned.stop() }
        let lines = warned.stderr.split(separator: "\n")
        let checkIndex = try #require(lines.firstIndex { $0.contains(#""msg":"storage bucket check failed""#) })
        let listeningIndex = try #require(lines.firstIndex { $0.contains(#""msg":"listening""#) })
        #expect(checkIndex < listeningIndex, "the check's line comes before the server listens")

        env["PRESIGN_S3_STARTUP_CHECK"] = "fail"
        let failed = try ServerProcess(environment: env, expectListening: false)
        #expect(await failed.exit(within: 30) == 1, "\(failed.stderr)")
        let line = try #require(await failed.line(containing: #""msg":"cannot start""#))
        #expect(line.contains("the bucket check failed (s3.startupCheck is fail): NoSuchBucket (HTTP 404)"), "\(line)")
        #expect(!failed.stderr.contains(#""msg":"listening""#))
    }
}
