import Foundation
import Testing

@testable import HTTPClient

/// HTTPS through the client against `openssl s_server`: verification against a CA file, the
/// system store, and the host name or IP address.
@Suite struct HTTPClientTLSTests {
    /// A client trusting `caFile` (nil: the system store).
    static func client(caFile: String?) -> HTTPClient {
        HTTPClient(options: HTTPClientOptions(requestTimeoutMs: 3000, connectTimeoutMs: 1000, caFile: caFile))
    }

    /// `GET /` to `host:port` over TLS.
    static func get(_ client: HTTPClient, host: String, port: Int) throws(HTTPClientError) -> HTTPResponse {
        try client.send(
            HTTPRequest(method: "GET", target: "/"), to: ServerAddress(usesTLS: true, host: host, port: port))
    }

    @Test(arguments: ["127.0.0.1", "localhost"])
    func trustedCAGetsA200(_ host: String) throws {
        let server = try OpenSSLServer()
        defer { server.stop() }
        let client = Self.client(caFile: try OpenSSLServer.caFile)
        let response = try Self.get(client, host: host, port: server.port)
        #expect(response.status == 200)
        // s_server -www answers HTTP/1.0 with a close-delimited HTML status page.
        #expect(
            String(decoding: response.body, as: UTF8.self).contains("<HTML>")
                || String(decoding: response.body, as: UTF8.self).contains("<html>"))
        #expect(client.idleConnectionCount(to: ServerAddress(usesTLS: true, host: host, port: server.port)) == 0)
    }

    @Test func theSystemStoreDoesNotTrustTheTestCA() throws {
        let server = try OpenSSLServer()
        defer { server.stop() }
        do throws(HTTPClientError) {
            _ = try Self.get(Self.client(caFile: nil), host: "127.0.0.1", port: server.port)
            Issue.record("a certificate from an unknown CA was accepted")
        } catch {
            guard case .tls(let message) = error else {
                Issue.record("expected a TLS error, got \(error)")
                return
            }
            #expect(message.contains("certificate"), "\(message)")
        }
    }

    /// 127.0.0.2 reaches the same server (all of 127/8 is loopback) but is not in the certificate.
    @Test func aHostNameMismatchIsRefused() throws {
        let server = try OpenSSLServer()
        defer { server.stop() }
        let client = Self.client(caFile: try OpenSSLServer.caFile)
        do throws(HTTPClientError) {
            _ = try Self.get(client, host: "127.0.0.2", port: server.port)
            Issue.record("a certificate for another address was accepted")
        } catch {
            guard case .tls(let message) = error else {
                Issue.record("expected a TLS error, got \(error)")
                return
            }
            #expect(message.contains("mismatch"), "\(message)")
        }
    }

    @Test func aMissingCAFileIsATLSError() throws {
        let server = try OpenSSLServer()
        defer { server.stop() }
        let error = #expect(throws: HTTPClientError.self) {
            try Self.get(Self.client(caFile: "/nonexistent/ca.pem"), host: "127.0.0.1", port: server.port)
        }
        guard case .tls? = error else {
            Issue.record("expected a TLS failure, got \(String(describing: error))")
            return
        }
        do throws(HTTPClientError) {
            _ = try Self.get(Self.client(caFile: "/nonexistent/ca.pem"), host: "127.0.0.1", port: server.port)
        } catch {
            guard case .tls(let message) = error else {
                Issue.record("expected a TLS error, got \(error)")
                return
            }
            #expect(message.contains("/nonexistent/ca.pem"))
        }
    }

    @Test func plainHTTPToATLSPortFails() throws {
        let server = try OpenSSLServer()
        defer { server.stop() }
        #expect(throws: HTTPClientError.self) {
            try Self.client(caFile: nil).send(
                HTTPRequest(method: "GET", target: "/"),
                to: ServerAddress(usesTLS: false, host: "127.0.0.1", port: server.port))
        }
    }
}
