import Synchronization

/// A small blocking HTTP/1.1 client for the server's own calls (object storage, credential services).
///
/// Runs on worker threads, never on event loops. One exchange at a time per connection; idle
/// keep-alive connections wait in a bounded per-address pool. Plain HTTP or HTTPS (libssl, TLS 1.2+,
/// SNI, certificate and host-name verification). Each exchange has one deadline covering connect,
/// handshake, request and response; the connect alone is also bounded by `connectTimeoutMs`.
public final class HTTPClient: Sendable {
    /// The limits.
    public let options: HTTPClientOptions
    /// Idle connections.
    let pool: ConnectionPool
    /// The TLS context for HTTPS, or the reason it could not be made; made on the first HTTPS connection
    /// (loading the system's CA store costs tens of milliseconds, which plain-HTTP deployments and the
    /// start-up time should not pay).
    private let tlsContext = Mutex<Result<TLSContext, HTTPClientError>?>(nil)

    /// A client with these limits; a bad CA file surfaces as `.tls` on the first HTTPS request.
    public init(options: HTTPClientOptions) {
        self.options = options
        self.pool = ConnectionPool(maxIdle: options.maxIdleConnections, idleTimeoutMs: options.idleTimeoutMs)
    }

    /// The TLS context, made once.
    private func context() -> Result<TLSContext, HTTPClientError> {
        tlsContext.withLock { cached in
            if let cached { return cached }
            let made: Result<TLSContext, HTTPClientError>
            do throws(HTTPClientError) {
                made = .success(try TLSContext(caFile: options.caFile))
            } catch {
                made = .failure(error)
            }
            cached = made
            return made
        }
    }

    /// Sends `request` to `address` and reads the whole response.
    ///
    /// When a pooled connection breaks before any byte of the response arrives (the server closed
    /// it while idle), an idempotent request (RFC 9110 section 9.2.2) is sent once more on a fresh
    /// connection, within the same deadline.
    public func send(_ request: HTTPRequest, to address: ServerAddress) throws(HTTPClientError) -> HTTPResponse {
        let deadline = Deadline.after(milliseconds: options.requestTimeoutMs)
        let encoded = Self.encode(request, authority: address.authority)
        if let pooled = pool.checkOut(address) {
            do throws(ExchangeFailure) {
                return try exchange(on: pooled, encoded, request: request, deadline: deadline)
            } catch {
                guard error.beforeResponse, case .connection = error.error, Self.isIdempotent(request.method) else {
                    throw error.error
                }
            }
        }
        let connection = try connect(to: address, deadline: deadline)
        do throws(ExchangeFailure) {
            return try exchange(on: connection, encoded, request: request, deadline: deadline)
        } catch {
            throw error.error
        }
    }

    /// Idle connections to `address` in the pool right now.
    public func idleConnectionCount(to address: ServerAddress) -> Int { pool.idleCount(for: address) }

    /// A new connection to `address`.
    func connect(to address: ServerAddress, deadline: Deadline) throws(HTTPClientError) -> ClientConnection {
        var context: TLSContext?
        if address.usesTLS {
            switch self.context() {
            case .success(let made): context = made
            case .failure(let error): throw error
            }
        }
        return try ClientConnection(
            connectingTo: address, via: options.connectHost, tlsContext: context,
            connectDeadline: Deadline.after(milliseconds: options.connectTimeoutMs), deadline: deadline)
    }

    /// True for the methods RFC 9110 section 9.2.2 calls idempotent.
    static func isIdempotent(_ method: String) -> Bool {
        ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"].contains(method)
    }

    /// The request line, header fields and body in one buffer (one write).
    static func encode(_ request: HTTPRequest, authority: String) -> [UInt8] {
        var output = [UInt8]()
        output.reserveCapacity(256 + request.body.count)
        func append(_ text: String) { output.append(contentsOf: text.utf8) }
        precondition(!request.method.isEmpty && request.method.utf8.allSatisfy(ResponseHeadParser.isTokenCharacter))
        precondition(request.target.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7f }, "the target must be percent-encoded")
        append(request.method)
        append(" ")
        append(request.target)
        append(" HTTP/1.1\r\n")
        var hasHost = false
        var hasLength = false
        for (name, value) in request.headers {
            precondition(!name.isEmpty && name.utf8.allSatisfy(ResponseHeadParser.isTokenCharacter), "bad header name")
            precondition(
                !value.utf8.contains { $0 == 0x0d || $0 == 0x0a || $0 == 0 }, "CR, LF or NUL in a header value")
            let lower = name.lowercased()
            hasHost = hasHost || lower == "host"
            hasLength = hasLength || lower == "content-length"
            append(name)
            append(": ")
            append(value)
            append("\r\n")
        }
        if !hasHost { append("Host: \(authority)\r\n") }
        if !hasLength && (!request.body.isEmpty || request.method == "PUT" || request.method == "POST") {
            append("Content-Length: \(request.body.count)\r\n")
        }
        append("\r\n")
        output.append(contentsOf: request.body)
        return output
    }
}

/// An exchange that failed, and whether it failed before any response byte arrived.
struct ExchangeFailure: Error {
    /// What went wrong.
    var error: HTTPClientError
    /// True when nothing of the response was received (a stale pooled connection looks like this).
    var beforeResponse: Bool
}
