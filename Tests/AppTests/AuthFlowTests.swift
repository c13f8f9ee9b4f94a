import Crypto
import Foundation
import JSON
import TestSupport
import Testing

/// Bearer tokens and rate limits against the real binary.
@Suite("Auth and rate limits (binary)")
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

    static func jwtServer(extra: [String: String] = [:]) throws -> ServerProcess {
        var more = [
            "PRESIGN_AUTH_MODE": "jwt", "PRESIGN_AUTH_JWT_ALGORITHMS": "HS256", "PRESIGN_AUTH_HS256_SECRET": secret,
        ]
        for (k, v) in extra { more[k] = v }
        let (env, _) = TestEnvironment.serverEnvironment(s3: nil, extra: more)
        return try ServerProcess(environment: env)
    }

    static func get(_ server: ServerProcess, _ path: String, auth: String? = nil) throws -> RawClient.Response {
        let c = try RawClient(port: server.port)
        c.send("GET \(path) HTTP/1.1\r\nHost: a\r\n" + (auth.map { "Authorization: \($0)\r\n" } ?? "") + "\r\n")
        return try #require(c.readResponse())
    }

    @Test("jwt mode: 401 with a challenge without or with a bad token; the user id comes from sub")
    func bearer() throws {
        let server = try Self.jwtServer()
        defer { server.stop() }
        let none = try Self.get(server, "/presigned-url?type=PROFILE&ext=jpg")
        #expect(none.status == 401)
        #expect(none.header("WWW-Authenticate") == #"Bearer realm="presignd""#)
        #expect(none.text == #"{"code":"UNAUTHORIZED","message":"invalid or missing credentials"}"#)
        let forged = try Self.get(
            server, "/presigned-url?type=PROFILE&ext=jpg",
            auth: "Bearer "
                + Self.token(sub: "7", exp: Self.now + 600, secret: "another-secret-of-sufficient-length-000"))
        #expect(forged.status == 401)
        #expect(forged.header("WWW-Authenticate")?.contains(#"error="invalid_token""#) == true)
        let expired = try Self.get(
            server, "/presigned-url?type=PROFILE&ext=jpg", auth: "Bearer " + Self.token(sub: "7", exp: Self.now - 3600))
        #expect(expired.status == 401)
        let ok = try Self.get(
            server, "/presigned-url?type=PROFILE&ext=jpg",
            auth: "Bearer " + Self.token(sub: "user-7", exp: Self.now + 600))
        #expect(ok.status == 200)
        #expect(try JSONValue(parsing: ok.body)["key"]?.stringValue?.hasPrefix("delete/profile/user-7/") == true)
        // A subject with characters no key may hold is mapped to a stable hashed id.
        let odd = try Self.get(
            server, "/presigned-url?type=PROFILE&ext=jpg",
            auth: "Bearer " + Self.token(sub: "auth0|Ab/../c", exp: Self.now + 600))
        let key = try JSONValue(parsing: odd.body)["key"]?.stringValue ?? ""
        #expect(key.range(of: #"^delete/profile/u-[0-9a-f]{32}/"#, options: .regularExpression) != nil, "\(key)")
        // The X-User-Id development header means nothing in jwt mode.
        let c = try RawClient(port: server.port)
        c.send("GET /presigned-url?type=PROFILE&ext=jpg HTTP/1.1\r\nHost: a\r\nX-User-Id: 42\r\n\r\n")
        #expect(c.readResponse()?.status == 401)
        // Operations routes need no caller.
        #expect(try Self.get(server, "/healthz").status == 200)
        #expect(try Self.get(server, "/metrics").status == 200)
    }

    @Test("rate limits: 429 with Retry-After once a user's bucket is empty, counted in the metrics")
    func rateLimits() throws {
        let server = try Self.jwtServer(extra: [
            "PRESIGN_LIMITS_ENABLED": "true", "PRESIGN_LIMITS_ISSUE_PER_USER_PER_MINUTE": "6",
            "PRESIGN_LIMITS_BURST": "20",
        ])
        defer { server.stop() }
        let alice = "Bearer " + Self.token(sub: "alice", exp: Self.now + 600)
        let bob = "Bearer " + Self.token(sub: "bob", exp: Self.now + 600)
        // 6 a minute with a 20-second burst: a bucket of 2.
        #expect(try Self.get(server, "/presigned-url?type=PROFILE&ext=jpg", auth: alice).status == 200)
        #expect(try Self.get(server, "/presigned-url?type=PROFILE&ext=jpg", auth: alice).status == 200)
        let limited = try Self.get(server, "/presigned-url?type=PROFILE&ext=jpg", auth: alice)
        #expect(limited.status == 429)
        let after = Int(limited.header("Retry-After") ?? "") ?? 0
        #expect(after >= 1 && after <= 10)
        #expect(try Self.get(server, "/presigned-url?type=PROFILE&ext=jpg", auth: bob).status == 200, "per user")
        let metrics = try Self.get(server, "/metrics").text
        #expect(metrics.contains("presignd_rate_limited_issue_total 1"))
    }

    @Test("per-address limits apply before any token is verified")
    func addressLimit() throws {
        let server = try Self.jwtServer(extra: [
            "PRESIGN_LIMITS_ENABLED": "true", "PRESIGN_LIMITS_ISSUE_PER_ADDRESS_PER_MINUTE": "3",
            "PRESIGN_LIMITS_BURST": "20",
        ])
        defer { server.stop() }
        #expect(try Self.get(server, "/presigned-url?type=PROFILE&ext=jpg", auth: "Bearer garbage").status == 401)
        let r = try Self.get(server, "/presigned-url?type=PROFILE&ext=jpg", auth: "Bearer garbage")
        #expect(r.status == 429, "the second bad-token request from one address is refused before verification")
    }

    @Test("API keys: a configured key (stored as its SHA-256) is a caller; a wrong one is 401")
    func apiKeys() throws {
        let key = "server-to-server-key-\(UUID().uuidString)"
        let server = try Self.jwtServer(extra: ["PRESIGN_AUTH_API_KEYS": "backend:" + SHA256.hash(key).hex])
        defer { server.stop() }
        let ok = try RawClient(port: server.port)
        ok.send("GET /presigned-url?type=PROFILE&ext=jpg HTTP/1.1\r\nHost: a\r\nX-Api-Key: \(key)\r\n\r\n")
        let r = try #require(ok.readResponse())
        #expect(r.status == 200, "\(r.text)")
        #expect(try JSONValue(parsing: r.body)["key"]?.stringValue?.hasPrefix("delete/profile/apikey-backend/") == true)
        let bad = try RawClient(port: server.port)
        bad.send("GET /presigned-url?type=PROFILE&ext=jpg HTTP/1.1\r\nHost: a\r\nX-Api-Key: \(key)x\r\n\r\n")
        #expect(bad.readResponse()?.status == 401)
    }
}
