/// Something a test sends HTTP/1.1 requests to: the application in process (AppTestSupport's
/// `InProcessApp`, through the in-memory client) or the real binary over a socket (`ServerProcess`).
/// Test helpers take `some HTTPTarget`, so a flow reads the same against either.
public protocol HTTPTarget: Sendable {
    /// Sends `request` (the bytes of one whole request) on a connection of its own and returns the
    /// response; throws when none comes.
    func exchange(_ request: [UInt8]) async throws -> WireResponse
}

extension HTTPTarget {
    /// Sends the request `text` (UTF-8) and returns its response.
    public func exchange(_ text: String) async throws -> WireResponse { try await exchange(Array(text.utf8)) }

    /// Sends one `RawClient.request(...)` and returns its response.
    public func exchange(
        _ method: String, _ target: String, host: String = "a", headers: String = "", body: String? = nil,
        contentType: String? = "application/json"
    ) async throws -> WireResponse {
        try await exchange(
            RawClient.request(method, target, host: host, headers: headers, body: body, contentType: contentType))
    }

    /// The value of the unlabelled gauge or counter `name` in `/metrics`, or nil when it is not there.
    public func metric(_ name: String, path: String = "/metrics") async throws -> Int? {
        let text = try await exchange("GET", path).text
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Int(line.dropFirst(name.count + 1))
        }
        return nil
    }
}

/// A server on a TCP port (the binary, RGW, a proxy): each exchange on a new connection, its blocking
/// socket read on a thread of its own (`onThread`), so the awaiting test holds no cooperative thread.
public struct SocketTarget: HTTPTarget {
    /// The host to connect to (an IPv4 address).
    public var host: String
    /// The port.
    public var port: Int
    /// How long a response may take.
    public var timeoutMs: Int

    /// The server at `host:port`.
    public init(host: String = "127.0.0.1", port: Int, timeoutMs: Int = 30_000) {
        self.host = host
        self.port = port
        self.timeoutMs = timeoutMs
    }

    /// Sends `request` on a new connection and reads its response.
    public func exchange(_ request: [UInt8]) async throws -> WireResponse {
        let (host, port, timeoutMs) = (self.host, self.port, self.timeoutMs)
        return try await onThread {
            let client = try RawClient(port: port, host: host, timeoutMs: timeoutMs)
            client.send(request)
            guard let response = client.readResponse(isHead: WireResponse.isHeadRequest(request)) else {
                throw TestFailure("no response from \(host):\(port) within \(timeoutMs) ms")
            }
            return response
        }
    }
}

extension ServerProcess: HTTPTarget {
    /// Sends `request` on a new connection to the binary and reads its response within 30 s.
    public func exchange(_ request: [UInt8]) async throws -> WireResponse {
        try await SocketTarget(port: port).exchange(request)
    }
}
