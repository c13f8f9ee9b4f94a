import Foundation
import TestSupport
import Testing

@testable import HTTPClient

/// `HTTPClientOptions.connectHost`: the connection goes to that host, the request keeps the
/// addressed host (a virtual-hosted name DNS does not know reaches a loopback server). The name is
/// never looked up: nothing here asks a resolver beyond loopback.
@Suite struct HTTPClientConnectHostTests {
    @Test func anUnresolvableVirtualHostIsReachedThroughTheConnectHost() throws {
        let server = try FakeServer { _, _ in .respond("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok") }
        defer { server.stop() }
        let address = ServerAddress(usesTLS: false, host: "uploads.presignd-test.invalid", port: server.port)
        let client = HTTPClient(
            options: HTTPClientOptions(requestTimeoutMs: 2000, connectTimeoutMs: 1000, connectHost: "127.0.0.1"))
        let response = try client.send(HTTPRequest(method: "GET", target: "/k"), to: address)
        #expect(response.status == 200)
        let request = try #require(server.requests.last)
        let lines = request.components(separatedBy: "\r\n")
        #expect(lines.contains("Host: uploads.presignd-test.invalid:\(server.port)"), "\(request)")
        // Pooled by the addressed host: the next request reuses the connection.
        #expect(client.idleConnectionCount(to: address) == 1)
    }
}
