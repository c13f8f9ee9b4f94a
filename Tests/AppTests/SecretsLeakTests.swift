import Foundation
import JSON
import TestSupport
import Testing

/// No secret ever reaches logs, error bodies, /metrics or a configuration dump: the whole flow runs
/// with a known secret key, token and signature, then everything the server printed is searched.
@Suite("Secrets never leak", .heavy(aloneSeconds: 8))
struct SecretsLeakTests {
    @Test("secret key, HS256 secret, token and signatures appear in no output")
    func noLeaks() async throws {
        let s3 = try TestEnvironment.s3()
        let hs = "leak-test-hs256-secret-0123456789abcdefXYZ"
        var (env, _) = TestEnvironment.serverEnvironment(
            s3: s3,
            extra: [
                "PRESIGN_AUTH_MODE": "jwt", "PRESIGN_AUTH_JWT_ALGORITHMS": "HS256", "PRESIGN_AUTH_HS256_SECRET": hs,
            ])
        env["PRESIGN_LOG_LEVEL"] = "debug"
        let dump = try ServerProcess(environment: env, arguments: ["--check-config"], expectListening: false)
        _ = await dump.exit()
        let server = try await ServerProcess(environment: env)
        let token = "Bearer " + AuthFlowTests.token(sub: "leaky", exp: AuthFlowTests.now + 600, secret: hs)
        var bodies = ""
        var signatures: [String] = []
        func send(_ raw: String) async throws -> WireResponse {
            let r = try await server.exchange(raw)
            bodies += r.text + "\n" + r.headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
            return r
        }
        let issued = try await send(
            "GET /presigned-url?type=PROFILE&ext=jpg HTTP/1.1\r\nHost: a\r\nAuthorization: \(token)\r\n\r\n")
        let url = try #require(try JSONValue(parsing: issued.body)["presignedUrl"]?.stringValue)
        signatures.append(String(url.suffix(64)))
        let key = try #require(try JSONValue(parsing: issued.body)["key"]?.stringValue)
        let t = try #require(ClientPFlowTests.rebuildLikeClientP(url))
        #expect(
            try await ClientPFlowTests.put(
                s3, target: t.path + "?" + t.query, contentType: "image/jpeg",
                body: TestImages.jpeg(width: 2, height: 2)) == 200
        )
        let body = #"{"imageKey":"\#(key)"}"#
        let confirmed = try await send(
            "POST /images HTTP/1.1\r\nHost: a\r\nAuthorization: \(token)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        )
        #expect(confirmed.status == 201)
        if let readURL = try JSONValue(parsing: confirmed.body)["url"]?.stringValue {
            signatures.append(String(readURL.suffix(64)))
        }
        _ = try await send(
            "GET /presigned-url?type=PROFILE&ext=jpg HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer \(hs)\r\n\r\n")
        _ = try await send(
            "GET /presigned-url?type=NOPE&ext=jpg HTTP/1.1\r\nHost: a\r\nAuthorization: \(token)\r\n\r\n")
        _ = try await send("GET /metrics HTTP/1.1\r\nHost: a\r\n\r\n")
        _ = try await send("GET /readyz HTTP/1.1\r\nHost: a\r\n\r\n")
        server.stop()
        // What the server printed must hold none of them; the response bodies carry the signatures (the
        // URLs are the product) but never a key, a token or the HS256 secret.
        let printed = [dump.stdout, dump.stderr, server.stdout, server.stderr]
        let tokenValue = String(token.dropFirst("Bearer ".count))
        let secrets = [("S3 secret key", s3.secretKey), ("HS256 secret", hs), ("bearer token", tokenValue)]
        #expect(signatures.count == 2)
        for (name, secret) in secrets + signatures.map({ ("signature", $0) }) {
            for (i, text) in printed.enumerated() {
                #expect(!text.contains(secret), "\(name) found in output \(i)")
            }
        }
        for (name, secret) in secrets { #expect(!bodies.contains(secret), "\(name) found in a response") }
        #expect(dump.stdout.contains("<redacted>"))
        #expect(server.stderr.contains(#""route":"/images""#), "the log was captured")
    }
}
