import Foundation
import TestSupport
import Testing

@testable import HTTPClient

/// The HTTP/1.1 client against scripted local servers: framing, keep-alive, stale connections,
/// limits and timeouts.
@Suite struct HTTPClientTests {
    /// A client with short timeouts.
    static func client(requestTimeoutMs: Int = 2000, maxResponseBytes: Int = 1 << 20) -> HTTPClient {
        HTTPClient(
            options: HTTPClientOptions(
                requestTimeoutMs: requestTimeoutMs, connectTimeoutMs: 1000, maxResponseBytes: maxResponseBytes))
    }

    /// The address of a fake server.
    static func address(_ server: FakeServer) -> ServerAddress {
        ServerAddress(usesTLS: false, host: "127.0.0.1", port: server.port)
    }

    @Test func decodesAChunkedBody() throws {
        let server = try FakeServer { _, _ in
            .respond(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\nX-T: 1\r\n\r\n"
            )
        }
        defer { server.stop() }
        let client = Self.client()
        let response = try client.send(HTTPRequest(method: "GET", target: "/a"), to: Self.address(server))
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "hello, world")
        // The chunked body ended cleanly, so the connection went back to the pool.
        #expect(client.idleConnectionCount(to: Self.address(server)) == 1)
    }

    @Test func readsACloseDelimitedBody() throws {
        let server = try FakeServer { _, _ in
            .respondAndClose("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end\nof the stream")
        }
        defer { server.stop() }
        let client = Self.client()
        let response = try client.send(HTTPRequest(method: "GET", target: "/"), to: Self.address(server))
        #expect(String(decoding: response.body, as: UTF8.self) == "until the end\nof the stream")
        #expect(response.header("content-type") == "text/plain")
        #expect(client.idleConnectionCount(to: Self.address(server)) == 0)
    }

    @Test func reusesAKeptAliveConnection() throws {
        let server = try FakeServer { index, _ in .respond("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n\(index)") }
        defer { server.stop() }
        let client = Self.client()
        let first = try client.send(HTTPRequest(method: "GET", target: "/1"), to: Self.address(server))
        let second = try client.send(HTTPRequest(method: "GET", target: "/2"), to: Self.address(server))
        #expect(first.body == Array("0".utf8))
        #expect(second.body == Array("1".utf8))
        #expect(server.requests.count == 2)
        #expect(server.connections == 1)
    }

    @Test func headResponsesHaveNoBodyWhateverTheirLength() throws {
        let server = try FakeServer { _, _ in
            .respond("HTTP/1.1 200 OK\r\nContent-Length: 12345\r\nETag: \"e\"\r\n\r\n")
        }
        defer { server.stop() }
        let client = Self.client()
        let head = try client.send(HTTPRequest(method: "HEAD", target: "/k"), to: Self.address(server))
        let again = try client.send(HTTPRequest(method: "HEAD", target: "/k"), to: Self.address(server))
        #expect(head.body.isEmpty && again.body.isEmpty)
        #expect(head.header("Content-Length") == "12345")
        #expect(server.connections == 1)
    }

    @Test func aConnectionCloseResponseIsNotPooled() throws {
        let server = try FakeServer { _, _ in .respond("HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n") }
        defer { server.stop() }
        let client = Self.client()
        _ = try client.send(HTTPRequest(method: "DELETE", target: "/k"), to: Self.address(server))
        _ = try client.send(HTTPRequest(method: "DELETE", target: "/k"), to: Self.address(server))
        #expect(server.connections == 2)
    }

    /// The server drops the pooled connection after reading the second request: the client sends
    /// it again, once, on a fresh connection.
    @Test func aStalePooledConnectionIsReplacedOnce() throws {
        let server = try FakeServer { index, _ in
            index == 1 ? .close : .respond("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        }
        defer { server.stop() }
        let client = Self.client()
        _ = try client.send(HTTPRequest(method: "GET", target: "/1"), to: Self.address(server))
        let second = try client.send(HTTPRequest(method: "GET", target: "/2"), to: Self.address(server))
        #expect(second.body == Array("ok".utf8))
        #expect(server.requests.count == 3)
        #expect(server.connections == 2)
    }

    @Test func aFreshConnectionClosedWithoutAnswerIsAnError() throws {
        let server = try FakeServer { _, _ in .close }
        defer { server.stop() }
        let error = #expect(throws: HTTPClientError.self) {
            try Self.client().send(HTTPRequest(method: "GET", target: "/"), to: Self.address(server))
        }
        guard case .connection? = error else {
            Issue.record("expected a connection error, got \(String(describing: error))")
            return
        }
        #expect(server.requests.count == 1)
    }

    @Test func aBodyOverTheLimitIsRefused() throws {
        let server = try FakeServer { _, _ in
            .respond("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" + String(repeating: "x", count: 100))
        }
        defer { server.stop() }
        #expect(throws: HTTPClientError.malformedResponse("response body larger than 50 bytes")) {
            try Self.client(maxResponseBytes: 50).send(
                HTTPRequest(method: "GET", target: "/"), to: Self.address(server))
        }
    }

    @Test func aTruncatedBodyIsAConnectionError() throws {
        let server = try FakeServer { _, _ in .respondAndClose("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort") }
        defer { server.stop() }
        do throws(HTTPClientError) {
            _ = try Self.client().send(HTTPRequest(method: "GET", target: "/"), to: Self.address(server))
            Issue.record("a truncated body was accepted")
        } catch {
            guard case .connection = error else {
                Issue.record("expected a connection error, got \(error)")
                return
            }
        }
    }

    @Test func skipsInterimResponses() throws {
        let server = try FakeServer { _, _ in
            .respond("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi")
        }
        defer { server.stop() }
        let response = try Self.client().send(
            HTTPRequest(method: "PUT", target: "/", body: [1, 2, 3]), to: Self.address(server))
        #expect(response.status == 200)
        #expect(response.body == Array("hi".utf8))
        let request = try #require(server.requests.first)
        #expect(request.contains("Content-Length: 3"))
        #expect(request.contains("Host: 127.0.0.1:\(server.port)"))
    }

    @Test func aServerThatNeverAnswersTimesOut() throws {
        let server = try FakeServer { _, _ in .hang }
        defer { server.stop() }
        let start = Date()
        do throws(HTTPClientError) {
            _ = try Self.client(requestTimeoutMs: 300).send(
                HTTPRequest(method: "GET", target: "/"), to: Self.address(server))
            Issue.record("a hung server answered")
        } catch {
            guard case .timeout = error else {
                Issue.record("expected a timeout, got \(error)")
                return
            }
        }
        // The deadline never ends early; no upper bound (a loaded machine only makes it later).
        let elapsed = Date().timeIntervalSince(start)
        #expect(elapsed >= 0.29, "took \(elapsed) s")
    }

    @Test func aRefusedConnectionIsAConnectionError() throws {
        // Bind a port, close it: nothing listens there now.
        let server = try FakeServer { _, _ in .close }
        let port = server.port
        server.stop()  // closes the listening socket before it returns
        do throws(HTTPClientError) {
            _ = try Self.client().send(
                HTTPRequest(method: "GET", target: "/"),
                to: ServerAddress(usesTLS: false, host: "127.0.0.1", port: port))
            Issue.record("connected to a closed port")
        } catch {
            guard case .connection(let message) = error else {
                Issue.record("expected a connection error, got \(error)")
                return
            }
            #expect(message.contains("refused"))
        }
    }
}
