import Foundation
import JSON
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Everything the real binary writes to standard error is one JSON object per line with a `time`, and
/// the lines say what an operator needs: who was served, and why a token was refused, never the token.
@Suite("Log lines (binary)", .heavy)
struct LogLinesTests {
    static let timePattern = #"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$"#

    /// Every line of `server`'s standard error, parsed; each must have `time`, `level` and `msg`.
    static func entries(_ server: ServerProcess) throws -> [JSONValue] {
        let entries = try server.logEntries()
        for e in entries {
            let time = e["time"]?.stringValue ?? ""
            #expect(time.range(of: timePattern, options: .regularExpression) != nil, "time in \(e.jsonText)")
            #expect(["debug", "info", "warn", "error"].contains(e["level"]?.stringValue ?? ""), "\(e.jsonText)")
            #expect(e["msg"]?.stringValue != nil, "\(e.jsonText)")
        }
        return entries
    }

    static func send(_ server: ServerProcess, _ head: String, body: String? = nil) async throws -> WireResponse {
        guard let body else { return try await server.exchange(head + "\r\n") }
        return try await server.exchange(
            head + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body)
    }

    @Test("start, served and refused requests, SIGTERM drain: every line is JSON with time; no token in any")
    func wholeRun() async throws {
        let server = try await ServerProcess(environment: AuthFlowTests.jwtEnvironment())
        defer { server.stop() }
        let good = AuthFlowTests.token(sub: "user-7", exp: AuthFlowTests.now + 600)
        let expired = AuthFlowTests.token(sub: "user-7", exp: AuthFlowTests.now - 3600)
        let forged = AuthFlowTests.token(
            sub: "user-7", exp: AuthFlowTests.now + 600, secret: "another-secret-of-sufficient-length-000")
        let get = "GET /presigned-url?type=PROFILE&ext=jpg HTTP/1.1\r\nHost: a\r\n"
        #expect(
            try await Self.send(server, get + "X-Request-Id: ok-get\r\nAuthorization: Bearer \(good)\r\n").status == 200
        )
        let post =
            "POST /presigned-url HTTP/1.1\r\nHost: a\r\nX-Request-Id: ok-post\r\nAuthorization: Bearer \(good)\r\n"
        let body = #"{"contentType":"image/jpeg","imageKey":"\#(UUID().uuidString)"}"#
        #expect(try await Self.send(server, post, body: body).status == 200)
        #expect(
            try await Self.send(server, get + "X-Request-Id: expired-1\r\nAuthorization: Bearer \(expired)\r\n").status
                == 401
        )
        #expect(
            try await Self.send(server, get + "X-Request-Id: forged-1\r\nAuthorization: Bearer \(forged)\r\n").status
                == 401)
        #expect(try await Self.send(server, get + "X-Request-Id: none-1\r\n").status == 401)
        server.signal(SIGTERM)
        #expect(await server.exit() == 0)

        let entries = try Self.entries(server)
        func messages(_ msg: String) -> [JSONValue] { entries.filter { $0["msg"]?.stringValue == msg } }
        #expect(messages("listening").count == 1)
        #expect(messages("draining").first?["signal"]?.intValue == Int(SIGTERM))
        #expect(messages("stopped").count == 1)

        // Why each token was refused, tied to its request.
        let refused = messages("auth refused")
        let reasons = Dictionary(
            refused.map { ($0["requestId"]?.stringValue ?? "", $0["reason"]?.stringValue ?? "") },
            uniquingKeysWith: { a, _ in a })
        #expect(reasons == ["expired-1": "expired", "forged-1": "bad_signature", "none-1": "missing_credentials"])
        #expect(refused.allSatisfy { $0["level"]?.stringValue == "info" && $0["detail"]?.stringValue != nil })

        // The caller of each served request is in its access line; a refused request has none.
        let requests = Dictionary(
            messages("request").map { ($0["requestId"]?.stringValue ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        #expect(requests["ok-get"]?["userId"]?.stringValue == "user-7")
        #expect(requests["ok-post"]?["userId"]?.stringValue == "user-7", "a worker-pool route too")
        #expect(requests["expired-1"]?["status"]?.intValue == 401)
        #expect(requests["expired-1"]?["userId"] == nil)

        // No token, nor any of its three parts.
        let text = server.stderr
        for token in [good, expired, forged] {
            for part in token.split(separator: ".") { #expect(!text.contains(part), "a token part is in the log") }
        }
    }

    @Test("a start-up failure's error is escaped, so a quote or backslash in a path keeps the line JSON")
    func startupFailureIsEscaped() async throws {
        let dir = Temporary.directory()
        let blocker = dir + "/not-a-directory"
        #expect(FileManager.default.createFile(atPath: blocker, contents: Data()))
        let path = blocker + #"/a "quoted\name.sqlite3"#
        let (env, _) = TestEnvironment.serverEnvironment(s3: nil, extra: ["PRESIGN_RECORDS_URL": "sqlite:" + path])
        let server = try ServerProcess(environment: env, expectListening: false)
        #expect(await server.exit() == 1)
        // The credential chain answers first (its own info line), then the store fails.
        let all = try Self.entries(server)
        #expect(all.map { $0["msg"]?.stringValue ?? "" } == ["credentials", "cannot start"], "\(server.stderr)")
        let entries = all.filter { $0["msg"]?.stringValue != "credentials" }
        #expect(entries.first?["msg"]?.stringValue == "cannot start")
        #expect(entries.first?["level"]?.stringValue == "error")
        #expect(entries.first?["error"]?.stringValue?.contains(path) == true, "\(server.stderr)")
    }

    @Test("auth.mode none: the start-up warning is JSON with time too")
    func noneModeWarning() async throws {
        let (env, _) = TestEnvironment.serverEnvironment(s3: nil, extra: ["PRESIGN_AUTH_MODE": "none"])
        let server = try await ServerProcess(environment: env)
        server.signal(SIGTERM)
        #expect(await server.exit() == 0)
        let entries = try Self.entries(server)
        #expect(entries.map { $0["msg"]?.stringValue ?? "" }.filter { $0.hasPrefix("auth.mode is none") }.count == 1)
        #expect(entries.last?["msg"]?.stringValue == "stopped")
    }
}
