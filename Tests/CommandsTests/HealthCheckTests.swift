import Commands
import Config
import Foundation
import TestSupport
import Testing

/// `presignd healthcheck`: the container's HEALTHCHECK without curl.
@Suite("presignd healthcheck")
struct HealthCheckTests {
    @Test("the probed address: wildcards become loopback, the metrics listener wins, TLS alone is refused")
    func address() {
        var server = ServerConfig()
        server.host = "0.0.0.0"
        server.port = 8080
        #expect(HealthCheck.address(server: server, tlsEnabled: false)?.description == "http://127.0.0.1:8080")
        server.host = "::"
        #expect(HealthCheck.address(server: server, tlsEnabled: false)?.description == "http://127.0.0.1:8080")
        server.host = "127.0.0.2"
        #expect(HealthCheck.address(server: server, tlsEnabled: false)?.description == "http://127.0.0.2:8080")
        #expect(HealthCheck.address(server: server, tlsEnabled: true) == nil)
        server.metricsPort = 9100
        #expect(HealthCheck.address(server: server, tlsEnabled: true)?.description == "http://127.0.0.2:9100")
    }

    @Test("exit 0 while the server answers /healthz, 1 once it is gone, 1 on a bad configuration")
    func binary() throws {
        let env = HealthCheckTests.serverEnvironment()
        let server = try ServerProcess(environment: env)
        let port = String(server.port)
        let healthy = try ServerProcess(
            environment: env, arguments: ["healthcheck", "--port", port], expectListening: false)
        #expect(healthy.waitForExit() == 0)
        #expect(healthy.stdout.contains("HTTP 200"))
        server.stop()
        let gone = try ServerProcess(
            environment: env, arguments: ["healthcheck", "--port", port], expectListening: false)
        #expect(gone.waitForExit() == 1)
        #expect(gone.stdout.contains("/healthz"))
        let bad = try ServerProcess(
            environment: env, arguments: ["healthcheck", "--port", "70000"], expectListening: false)
        #expect(bad.waitForExit() == 1, "Docker reserves exit 2; a health check never uses it")
        #expect(bad.stderr.contains("server.port"))
    }

    /// A server signing for a dead endpoint, with a SQLite store in a fresh temporary directory (no
    /// storage is called: only `/healthz` is asked).
    static func serverEnvironment() -> [String: String] {
        let dir = Temporary.directory()
        return [
            "PRESIGN_RECORDS_URL": "sqlite:\(dir)/presignd.sqlite3", "PRESIGN_S3_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE",
            "PRESIGN_S3_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "PRESIGN_S3_ENDPOINT": "http://127.0.0.1:9", "PRESIGN_S3_BUCKET": "uploads",
            "PRESIGN_S3_REGION": "us-east-1",
        ]
    }
}
