import AppTestSupport
import Foundation
import JSON
import TestSupport
import Testing

/// `/readyz` of the application (in process, configured as the binary is) against a real RGW configured
/// wrongly in each way a new operator may, and the one warning line the change of readiness leaves in
/// the log.
@Suite("Readiness names the storage error (RGW)")
struct ReadinessStorageTests {
    /// A storage misconfiguration and what `/readyz` must say about it.
    enum Misconfiguration: String, CaseIterable, CustomTestStringConvertible {
        case wrongSecret, unknownAccessKey, missingBucket, closedPort

        var testDescription: String { rawValue }

        /// The environment that makes it, on top of a correct one.
        func environment(_ s3: TestEnvironment.S3, closedPort: Int) -> [String: String] {
            switch self {
            case .wrongSecret: return ["PRESIGN_S3_SECRET_ACCESS_KEY": "not-the-secret-0000000000000000000000000"]
            case .unknownAccessKey: return ["PRESIGN_S3_ACCESS_KEY_ID": "NOSUCHACCESSKEY00001"]
            case .missingBucket:
                return ["PRESIGN_S3_BUCKET": "no-such-bucket-\(UUID().uuidString.prefix(8).lowercased())"]
            case .closedPort: return ["PRESIGN_S3_ENDPOINT": "http://127.0.0.1:\(closedPort)"]
            }
        }

        /// The start of the storage check's text, and the clock check's text.
        func expected(closedPort: Int) -> (storage: String, clock: String) {
            switch self {
            case .wrongSecret: return ("SignatureDoesNotMatch (HTTP 403): ", "ok")
            case .unknownAccessKey: return ("InvalidAccessKeyId (HTTP 403): ", "ok")
            case .missingBucket: return ("NoSuchBucket (HTTP 404): ", "ok")
            case .closedPort:
                return ("connection failed: connect to 127.0.0.1:\(closedPort): Connection refused", "unknown")
            }
        }
    }

    static func readyz(_ server: some HTTPTarget, requestId: String) async throws -> WireResponse {
        try await server.exchange("GET", "/readyz", headers: "X-Request-Id: \(requestId)\r\n")
    }

    @Test("503 naming the error, clock present; one warning line for two probes", arguments: Misconfiguration.allCases)
    func misconfigured(_ wrong: Misconfiguration) async throws {
        let s3 = try TestEnvironment.s3()
        let closed = try ClosedPort()
        defer { withExtendedLifetime(closed) {} }
        let closedPort = closed.port
        let (env, _) = TestEnvironment.serverEnvironment(s3: s3, extra: wrong.environment(s3, closedPort: closedPort))
        let server = try await InProcessApp(environment: env)
        defer { server.stop() }
        let expected = wrong.expected(closedPort: closedPort)

        let first = try await Self.readyz(server, requestId: "ready-1")
        #expect(first.status == 503)
        let body = try JSONValue(parsing: first.body)
        #expect(body["status"]?.stringValue == "not ready")
        #expect(body["checks"]?.objectValue?.keys == ["database", "credentials", "storage", "clock"])
        #expect(body["checks"]?["credentials"]?.stringValue == "ok")
        #expect(body["checks"]?["database"]?.stringValue == "ok")
        let storage = body["checks"]?["storage"]?.stringValue ?? ""
        #expect(storage.hasPrefix(expected.storage), "\(storage)")
        #expect(body["checks"]?["clock"]?.stringValue == expected.clock)

        #expect(try await Self.readyz(server, requestId: "ready-2").status == 503)
        // The warning of a probe is written before its response.
        let changes = try server.log.entries("readiness changed")
        #expect(changes.count == 1, "once per change, not per probe")
        #expect(changes.first?["level"]?.stringValue == "warn")
        #expect(changes.first?["status"]?.stringValue == "not ready")
        #expect(changes.first?["checks"]?["storage"]?.stringValue == storage)
        #expect(changes.first?["checks"]?["clock"]?.stringValue == expected.clock)
    }
}
