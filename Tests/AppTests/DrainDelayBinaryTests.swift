import Foundation
import JSON
import TestSupport
import Testing

/// `server.drainDelayMs` on the real binary: after SIGTERM `/readyz` answers 503 `draining` at once while
/// every other route is still served on new connections, and only after the delay do the listeners close
/// and the process exit 0. A second SIGTERM ends the delay early; SIGINT drains without it.
@Suite("Drain delay: /readyz 503 first, then the drain (binary)", .heavy(aloneSeconds: 15))
struct DrainDelayBinaryTests {
    /// One GET on a new connection.
    static func get(_ server: ServerProcess, _ path: String) async throws -> WireResponse {
        try await server.exchange("GET", path)
    }

    @Test("SIGTERM: readyz 503 draining, healthz and issuing still served, exit 0 after the delay")
    func readinessTurnsFirst() async throws {
        let s3 = try TestEnvironment.s3()
        // During a delay far longer than the requests below take, however slowly this test process is
        // scheduled under the whole suite (a 20 s one was seen to end first); a second SIGTERM ends it.
        let (env, _) = TestEnvironment.serverEnvironment(
            s3: s3, extra: ["PRESIGN_SERVER_DRAIN_DELAY_MS": "120000", "PRESIGN_LIMITS_ENABLED": "false"])
        let server = try await ServerProcess(environment: env)
        defer { server.stop() }
        #expect(try await Self.get(server, "/readyz").status == 200)
        server.signal(SIGTERM)
        #expect(await server.line(containing: #""msg":"draining""#)?.contains(#""delayMs":120000"#) == true)
        let ready = try await Self.get(server, "/readyz")
        #expect(ready.status == 503)
        let body = try JSONValue(parsing: ready.body)
        #expect(body["checks"]?["draining"]?.stringValue?.hasPrefix("stopping") == true)
        #expect(try await Self.get(server, "/healthz").status == 200)
        #expect(try await Self.get(server, "/presigned-url?type=PROFILE&ext=jpg").status == 200)
        server.signal(SIGTERM)
        #expect(await server.exit(within: 30) == 0)

        // The delay itself, alone: the process exits 0 once it has passed, not before.
        let (short, _) = TestEnvironment.serverEnvironment(s3: s3, extra: ["PRESIGN_SERVER_DRAIN_DELAY_MS": "3000"])
        let timed = try await ServerProcess(environment: short)
        defer { timed.stop() }
        let signalled = Date()
        timed.signal(SIGTERM)
        #expect(await timed.exit(within: 40) == 0)
        #expect(Date().timeIntervalSince(signalled) >= 2.9)
    }

    @Test("a second SIGTERM ends the delay; SIGINT drains at once")
    func secondSignalAndInterrupt() async throws {
        let s3 = try TestEnvironment.s3()
        let (env, _) = TestEnvironment.serverEnvironment(s3: s3, extra: ["PRESIGN_SERVER_DRAIN_DELAY_MS": "60000"])
        let first = try await ServerProcess(environment: env)
        defer { first.stop() }
        first.signal(SIGTERM)
        #expect(await first.line(containing: #""msg":"draining""#) != nil)
        #expect(try await Self.get(first, "/readyz").status == 503)
        first.signal(SIGTERM)
        #expect(await first.exit(within: 15) == 0)

        let second = try await ServerProcess(environment: env)
        defer { second.stop() }
        second.signal(SIGINT)
        #expect(await second.line(containing: #""msg":"draining""#)?.contains(#""delayMs":0"#) == true)
        #expect(await second.exit(within: 15) == 0)
    }
}
