import HTTPClient

/// The errors of the ObjectStore module; each carries context, never a signature, secret or token.
///
/// Error bodies from S3 can echo the string to sign and the signature sent (`SignatureDoesNotMatch`
/// does), so only the `<Code>` element of a body is ever kept.
public enum ObjectStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The store did not connect, answer or finish answering in time; the payload says which step.
    case timeout(String)
    /// The connection could not be made or broke (refused, reset, closed mid-response, DNS failure).
    case connection(String)
    /// TLS failed: the handshake, the certificate chain, the host name, or the CA file.
    case tls(String)
    /// The store answered with an unexpected status; `code` is S3's error code (`NoSuchKey`,
    /// `SignatureDoesNotMatch`, `SlowDown`) from the XML body when there is one. A copy that S3
    /// answers with 200 and an `<Error>` body is reported with status 200 and that code.
    case status(Int, code: String?)
    /// The response broke HTTP/1.1 or S3's format, or exceeded a size limit; the payload says how.
    case malformedResponse(String)
    /// The request could not be signed (an invalid key, bucket or header); the payload is SigV4's reason.
    case signing(String)
    /// A multipart call the store refused for a reason the caller can act on (`NoSuchUpload`,
    /// `InvalidPart`, `InvalidPartOrder`, `EntityTooSmall`): a client error, never retried.
    case multipart(MultipartRefusal)
}

extension ObjectStoreError {
    /// The same failure of the transport, as the S3 client reports it.
    public init(_ transport: HTTPClientError) {
        switch transport {
        case .timeout(let detail): self = .timeout(detail)
        case .connection(let detail): self = .connection(detail)
        case .tls(let detail): self = .tls(detail)
        case .malformedResponse(let detail): self = .malformedResponse(detail)
        }
    }

    /// True when a retry may succeed: 5xx, 429, S3's `SlowDown`, timeouts and broken connections.
    ///
    /// Other 4xx are never retried (the same request would fail the same way), nor TLS failures
    /// (a certificate does not fix itself), malformed responses or signing errors.
    public var isRetryable: Bool {
        switch self {
        case .timeout, .connection:
            return true
        case .status(let status, let code):
            if status >= 500 || status == 429 { return true }
            guard let code else { return false }
            return code == "SlowDown" || (status == 200 && Self.transientCodes.contains(code))
        case .tls, .malformedResponse, .signing, .multipart:
            return false
        }
    }

    /// Codes S3 may embed in a 200 answer to a copy when the copy failed on its side.
    private static let transientCodes: Set<String> = ["InternalError", "ServiceUnavailable", "SlowDown"]
}

extension ObjectStoreError {
    /// One line for logs and `/readyz`: the kind of failure, then its context (`NoSuchBucket (HTTP 404)`,
    /// `connection failed: connect to 127.0.0.1:9000: Connection refused`).
    public var description: String {
        switch self {
        case .timeout(let detail): return "timeout: \(detail)"
        case .connection(let detail): return "connection failed: \(detail)"
        case .tls(let detail): return "TLS failed: \(detail)"
        case .status(let status, let code):
            guard let code else { return "HTTP \(status)" }
            return "\(code) (HTTP \(status))"
        case .malformedResponse(let detail): return "malformed response: \(detail)"
        case .signing(let detail): return "cannot sign: \(detail)"
        case .multipart(let refusal): return "\(refusal.rawValue) (HTTP \(refusal.status))"
        }
    }
}
