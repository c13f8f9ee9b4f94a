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

extension ServerProcess: HTTPTarget {
    /// Sends `request` on a new connection to the binary (off the cooperative pool: the socket blocks)
    /// and reads its response within 30 s.
    public func exchange(_ request: [UInt8]) async throws -> WireResponse {
        let port = self.port
        return try await onThread {
            let client = try RawClient(port: port, timeoutMs: 30_000)
            client.send(request)
            guard let response = client.readResponse(isHead: WireResponse.isHeadRequest(request)) else {
                throw TestFailure("no response from port \(port) within 30 s")
            }
            return response
        }
    }
}
