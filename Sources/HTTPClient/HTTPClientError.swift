/// The errors of the HTTPClient module: one exchange that did not end in a complete response.
///
/// Each carries what went wrong and where, never a request's header values or body.
public enum HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server did not connect, answer or finish answering in time; the payload says which step.
    case timeout(String)
    /// The connection could not be made or broke (refused, reset, closed mid-response, DNS failure).
    case connection(String)
    /// TLS failed: the handshake, the certificate chain, the host name, or the CA file.
    case tls(String)
    /// The response broke HTTP/1.1 or exceeded a size limit; the payload says how.
    case malformedResponse(String)

    /// True when the same request may succeed on another try: a timeout or a broken connection.
    ///
    /// A TLS failure does not fix itself (a certificate, a CA file), nor does a malformed response.
    public var isRetryable: Bool {
        switch self {
        case .timeout, .connection: return true
        case .tls, .malformedResponse: return false
        }
    }

    /// One line for logs: the kind of failure, then its context
    /// (`connection failed: connect to 127.0.0.1:9000: Connection refused`).
    public var description: String {
        switch self {
        case .timeout(let detail): return "timeout: \(detail)"
        case .connection(let detail): return "connection failed: \(detail)"
        case .tls(let detail): return "TLS failed: \(detail)"
        case .malformedResponse(let detail): return "malformed response: \(detail)"
        }
    }
}
