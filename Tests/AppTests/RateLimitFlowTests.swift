import AppTestSupport
import Foundation
import TestSupport
import Testing

/// Rate limits through the application in process (each request from a connection of 127.0.0.1): the
/// confirm scope (`/images` routes) has its own buckets, and `X-Forwarded-For` decides the client address
/// only from a configured proxy.
@Suite("Rate limits")
struct RateLimitFlowTests {
    static func server(_ extra: [String: String]) async throws -> InProcessApp {
        var (env, _) = TestEnvironment.serverEnvironment(s3: nil, extra: extra)
        env["PRESIGN_LIMITS_ENABLED"] = "true"
        // The clock stopped at the start: no bucket refills between two requests of a slow run.
        return try await InProcessApp(environment: env, nowMillis: InProcessApp.frozenClock())
    }

    /// One request as user `user` with these extra header lines.
    static func send(
        _ server: some HTTPTarget, _ method: String, _ path: String, user: String, headers: [String] = [],
        body: String? = nil
    ) async throws -> WireResponse {
        try await server.exchange(
            method, path, headers: "X-User-Id: \(user)\r\n" + headers.map { $0 + "\r\n" }.joined(), body: body)
    }

    @Test("confirm scope: /images reads and confirmations share a per-user bucket of their own")
    func confirmScopePerUser() async throws {
        // 6 a minute with a 20-second burst: a bucket of 2 per user.
        let server = try await Self.server([
            "PRESIGN_LIMITS_CONFIRM_PER_USER_PER_MINUTE": "6", "PRESIGN_LIMITS_BURST": "20",
        ])
        defer { server.stop() }
        #expect(try await Self.send(server, "GET", "/images", user: "41").status == 200)
        let confirm = try await Self.send(
            server, "POST", "/images", user: "41", body: #"{"imageKey":"\#(UUID().uuidString)"}"#)
        #expect(confirm.status == 404, "admitted (no such intent): \(confirm.text)")
        let limited = try await Self.send(
            server, "POST", "/images", user: "41", body: #"{"imageKey":"\#(UUID().uuidString)"}"#)
        #expect(limited.status == 429)
        let after = Int(limited.header("Retry-After") ?? "") ?? 0
        #expect(after >= 1 && after <= 10, "one token comes back in 10 s at 6 a minute")
        #expect(try await Self.send(server, "GET", "/images", user: "41").status == 429, "the same bucket")
        #expect(try await Self.send(server, "GET", "/images", user: "42").status == 200, "per user")
        #expect(
            try await Self.send(server, "GET", "/presigned-url?type=PROFILE&ext=jpg", user: "41").status == 200,
            "the issue scope has its own buckets")
        #expect(try await server.metric("presignd_rate_limited_confirm_total") == 2)
        #expect(try await server.metric("presignd_rate_limited_issue_total") == 0)
    }

    @Test(
        "X-Forwarded-For names the client only on a connection from a trusted proxy",
        arguments: [
            // (trustedProxies, forwarded-for values of three requests, statuses expected)
            ("127.0.0.1", ["198.51.100.1", "198.51.100.2", "198.51.100.1"], [200, 200, 429]),
            // A forged hop in front of the one the proxy appended does not give a fresh bucket.
            ("127.0.0.0/8", ["198.51.100.1", "198.51.100.9, 198.51.100.1", "198.51.100.2"], [200, 429, 200]),
            // The test's connections come from 127.0.0.1, which is not a trusted proxy here: the header is
            // ignored, every request is the peer's.
            ("10.0.0.0/8", ["198.51.100.1", "198.51.100.2", "198.51.100.3"], [200, 429, 429]),
        ])
    func forwardedFor(trusted: String, hops: [String], statuses: [Int]) async throws {
        // 3 a minute with a 20-second burst: one request per address.
        let server = try await Self.server([
            "PRESIGN_LIMITS_CONFIRM_PER_ADDRESS_PER_MINUTE": "3", "PRESIGN_LIMITS_BURST": "20",
            "PRESIGN_LIMITS_TRUST_FORWARDED_FOR": "true", "PRESIGN_LIMITS_TRUSTED_PROXIES": trusted,
        ])
        defer { server.stop() }
        for (index, (hop, status)) in zip(hops, statuses).enumerated() {
            let r = try await Self.send(
                server, "GET", "/images", user: "\(100 + index)", headers: ["X-Forwarded-For: \(hop)"])
            #expect(r.status == status, "request \(index + 1) with X-Forwarded-For: \(hop)")
        }
    }

    @Test("X-Forwarded-For is ignored unless trusted, whatever proxies are listed")
    func forwardedForOff() async throws {
        let server = try await Self.server([
            "PRESIGN_LIMITS_CONFIRM_PER_ADDRESS_PER_MINUTE": "3", "PRESIGN_LIMITS_BURST": "20",
            "PRESIGN_LIMITS_TRUSTED_PROXIES": "127.0.0.1",
        ])
        defer { server.stop() }
        #expect(
            try await Self.send(server, "GET", "/images", user: "1", headers: ["X-Forwarded-For: 192.0.2.1"]).status
                == 200)
        #expect(
            try await Self.send(server, "GET", "/images", user: "2", headers: ["X-Forwarded-For: 192.0.2.2"]).status
                == 429)
    }

    @Test("trusting X-Forwarded-For without a proxy list is refused at start")
    func trustWithoutProxies() async throws {
        var (env, _) = TestEnvironment.serverEnvironment(s3: nil)
        env["PRESIGN_LIMITS_TRUST_FORWARDED_FOR"] = "true"
        // The configuration the binary would load is refused (it exits 2 on it: BinaryTests.invalidConfig).
        let refused = Result { try InProcessApp(environment: env) }
        guard case .failure(let error) = refused else {
            Issue.record("it must be refused, not serve")
            return
        }
        #expect("\(error)".contains("limits.trustedProxies"), "\(error)")
    }
}
