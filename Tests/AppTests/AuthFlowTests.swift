import AppTestSupport
import Crypto
import Foundation
import JSON
import TestSupport
import Testing

/// Bearer tokens and rate limits, the application in process.
@Suite("Auth and rate limits")
struct AuthFlowTests {
    static let secret = "test-hs256-secret-that-is-long-enough-0123456789"

    static func base64url(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// An HS256 token for `sub` expiring at `exp` (epoch seconds).
    static func token(sub: String, exp: Int, secret: String = secret) -> String {
        let header = base64url(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
        let payload = base64url(Array(#"{"sub":"\#(sub)","exp":\#(exp)}"#.utf8))
        let mac = HMACKey(key: Secret(secret)).authenticate(header + "." + payload)
        return header + "." + payload + "." + base64url(mac.bytes)
    }

    static var now: Int { Int(Date().timeIntervalSince1970) }

    /// A server's environment with HS256 bearer tokens (`secret`) and `extra` settings.
    static func jwtEnvironment(extra: [String: String] = [:]) -> [String: String] {
        var more = [
            "PRESIGN_AUTH_MODE": "jwt", "PRESIGN_AUTH_JWT_ALGORITHMS": "HS256", "PRESIGN_AUTH_HS256_SECRET": secret,
        ]
        for (k, v) in extra { more[k] = v }
        return TestEnvironment.serverEnvironment(s3: nil, extra: more).env
    }

    /// The application in process with `jwtEnvironment(extra:)`, its clock stopped at its start: a rate
    /// limit's bucket gets no token back however slowly a loaded machine runs the test.
    static func jwtServer(extra: [String: String] = [:]) async throws -> InProcessApp {
        try await InProcessApp(environment: jwtEnvironment(extra: extra), nowMillis: InProcessApp.frozenClock())
    }

    static func get(_ server: some HTTPTarget, _ path: String, auth: String? = nil) async throws -> WireResponse {
        try await server.exchange("GET", path, headers: auth.map { "Authorization: \($0)\r\n" } ?? "")
    }

    @Test("jwt mode: 401 with a challenge without or with a bad token; the user id comes from sub")
    func bearer() async throws {
        let server = try await Self.jwtServer()
        defer { server.stop() }
        let none = try await Self.get(server, "/presigned-url?type=PROFILE&ext=jpg")
        #expect(none.status == 401)
        #expect(none.header("WWW-Authenticate") == #"Bearer realm="presignd""#)
        #expect(none.text == #"{"code":"UNAUTHORIZED","message":"invalid or missing credentials"}"#)
        let forged = try await Self.get(
            server, "/presigned-url?type=PROFILE&ext=jpg",
            auth: "Bearer "
                + Self.token(sub: "7", exp: Self.now + 600, secret: "another-secret-of-sufficient-length-000"))
        #expect(forged.status == 401)
        #expect(forged.header("WWW-Authenticate")?.contains(#"error="invalid_token""#) == true)
        let expired = try await Self.get(
            server, "/presigned-url?type=PROFILE&ext=jpg", auth: "Bearer " + Self.token(sub: "7", exp: Self.now - 3600))
        #expect(expired.status == 401)
        let ok = try await Self.get(
            server, "/presigned-url?type=PROFILE&ext=jpg",
            auth: "Bearer " + Self.token(sub: "user-7", exp: Self.now + 600))
        #expect(ok.status == 200)
        #expect(try JSONValue(parsing: ok.body)["key"]?.stringValue?.hasPrefix("delete/profile/user-7/") == true)
        // A subject with characters no key may hold is mapped to a stable hashed id.
        let odd = try await Self.get(
            server, "/presigned-url?type=PROFILE&ext=jpg",
            auth: "Bearer " + Self.token(sub: "auth0|Ab/../c", exp: Self.now + 600))
        let key = try JSONValue(parsing: odd.body)["key"]?.stringValue ?? ""
        #expect(key.range(of: #"^delete/profile/u-[0-9a-f]{32}/"#, options: .regularExpression) != nil, "\(key)")
        // The X-User-Id development header means nothing in jwt mode.
        let dev = try await server.exchange("GET", "/presigned-url?type=PROFILE&ext=jpg", headers: "X-User-Id: 42\r\n")
        #expect(dev.status == 401)
        // Operations routes need no caller.
        #expect(try await Self.get(server, "/healthz").status == 200)
        #expect(try await Self.get(server, "/metrics").status == 200)
    }

    @Test("rate limits: 429 with Retry-After once a user's bucket is empty, counted in the metrics")
    func rateLimits() async throws {
        let server = try await Self.jwtServer(extra: [
            "PRESIGN_LIMITS_ENABLED": "true", "PRESIGN_LIMITS_ISSUE_PER_USER_PER_MINUTE": "6",
            "PRESIGN_LIMITS_BURST": "20",
        ])
        defer { server.stop() }
        let alice = "Bearer " + Self.token(sub: "alice", exp: Self.now + 600)
        let bob = "Bearer " + Self.token(sub: "bob", exp: Self.now + 600)
        // 6 a minute with a 20-second burst: a bucket of 2.
        #expect(try await Self.get(server, "/presigned-url?type=PROFILE&ext=jpg", auth: alice).status == 200)
        #expect(try await Self.get(server, "/presigned-url?type=PROFILE&ext=jpg", auth: alice).status == 200)
        let limited = try await Self.get(server, "/presigned-url?type=PROFILE&ext=jpg", auth: alice)
        #expect(limited.status == 429)
        let after = Int(limited.header("Retry-After") ?? "") ?? 0
        #expect(after >= 1 && after <= 10)
        #expect(try await Self.get(server, "/presigned-url?type=PROFILE&ext=jpg", auth: bob).status == 200, "per user")
        let metrics = try await Self.get(server, "/metrics").text
        #expect(metrics.contains("presignd_rate_limited_issue_total 1"))
    }

    @Test("per-address limits apply before any token is verified")
    func addressLimit() async throws {
        let server = try await Self.jwtServer(extra: [
            "PRESIGN_LIMITS_ENABLED": "true", "PRESIGN_LIMITS_ISSUE_PER_ADDRESS_PER_MINUTE": "3",
            "PRESIGN_LIMITS_BURST": "20",
        ])
        defer { server.stop() }
        #expect(try await Self.get(server, "/presigned-url?type=PROFILE&ext=jpg", auth: "Bearer garbage").status == 401)
        let r = try await Self.get(server, "/presigned-url?type=PROFILE&ext=jpg", auth: "Bearer garbage")
        #expect(r.status == 429, "the second bad-token request from one address is refused before verification")
    }

    @Test("API keys: a configured key (stored as its SHA-256) is a caller; a wrong one is 401")
    func apiKeys() async throws {
        let key = "server-to-server-key-\(UUID().uuidString)"
        let server = try await Self.jwtServer(extra: ["PRESIGN_AUTH_API_KEYS": "backend:" + SHA256.hash(key).hex])
        defer { server.stop() }
        let r = try await server.exchange(
            "GET", "/presigned-url?type=PROFILE&ext=jpg", headers: "X-Api-Key: \(key)\r\n")
        #expect(r.status == 200, "\(r.text)")
        #expect(try JSONValue(parsing: r.body)["key"]?.stringValue?.hasPrefix("delete/profile/apikey-backend/") == true)
        let bad = try await server.exchange(
            "GET", "/presigned-url?type=PROFILE&ext=jpg", headers: "X-Api-Key: \(key)x\r\n")
        #expect(bad.status == 401)
    }
}
