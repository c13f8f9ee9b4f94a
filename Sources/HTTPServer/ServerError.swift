import HTTP1

#if canImport(Glibc)
    import Glibc
#endif

/// The server's errors, in one enum: those of setting it up (a listen address, a socket call, TLS),
/// and those it answers by itself before or instead of a handler (a head that does not parse, no
/// route, a body too large or too late, a full worker queue). Each answer case has its `status`,
/// stable `code` and `message`; `ServerError+Response.swift` renders it in the route's shape.
public enum ServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The listen address could not be parsed.
    case invalidAddress(String)
    /// A socket call failed while setting up (call name, errno).
    case socket(String, Int32)
    /// TLS could not be set up: what failed (a step, or a file by its path) and OpenSSL's reason.
    /// Never holds key material: only paths and OpenSSL's error strings.
    case tls(String, reason: String)
    /// `reloadTLS()` was called on a server started without TLS.
    case tlsNotEnabled
    /// The metrics handed to the server have fewer request shards than it runs event loops.
    case metricsShards(have: Int, loops: Int)
    /// The request head, or a chunked body's framing, does not parse (400, 413, 414, 431, 501, 505).
    case malformed(ParseError)
    /// The method is not one the server knows (501; its framing is unknown, so the connection closes).
    case methodNotImplemented
    /// No route has this path (404).
    case noRoute
    /// The path exists for other methods only (405, with `Allow`).
    case methodNotAllowed(allow: [String])
    /// The declared body is over the route's limit (413, before any of it is read).
    case payloadTooLarge
    /// The body did not arrive within `ServerOptions.bodyTimeoutMs` (408).
    case bodyTimeout
    /// The worker pool's queue is full (503 `SERVER_BUSY`, `Retry-After: 1`).
    case busy
    /// A handler let its `Responder` go without answering (500; a bug of the handler).
    case responderDropped

    /// The HTTP status of the answer (500 for the set-up errors, which are never answered).
    public var status: Int {
        switch self {
        case .malformed(let e): return e.status
        case .methodNotImplemented: return 501
        case .noRoute: return 404
        case .methodNotAllowed: return 405
        case .payloadTooLarge: return 413
        case .bodyTimeout: return 408
        case .busy: return 503
        case .invalidAddress, .socket, .tls, .tlsNotEnabled, .metricsShards, .responderDropped: return 500
        }
    }

    /// The stable machine code of the answer (`NOT_FOUND`, `PAYLOAD_TOO_LARGE`, …).
    public var code: String {
        switch self {
        case .malformed(let e):
            switch e.status {
            case 413: return "PAYLOAD_TOO_LARGE"
            case 414: return "URI_TOO_LONG"
            case 431: return "HEADERS_TOO_LARGE"
            case 501: return "NOT_IMPLEMENTED"
            case 505: return "VERSION_NOT_SUPPORTED"
            default: return "BAD_REQUEST"
            }
        case .methodNotImplemented: return "NOT_IMPLEMENTED"
        case .noRoute: return "NOT_FOUND"
        case .methodNotAllowed: return "METHOD_NOT_ALLOWED"
        case .payloadTooLarge: return "PAYLOAD_TOO_LARGE"
        case .bodyTimeout: return "REQUEST_TIMEOUT"
        case .busy: return "SERVER_BUSY"
        case .invalidAddress, .socket, .tls, .tlsNotEnabled, .metricsShards, .responderDropped: return "INTERNAL_ERROR"
        }
    }

    /// The human message of the answer (fixed texts: never client bytes).
    public var message: String {
        switch self {
        case .malformed(let e): return e.reason
        case .methodNotImplemented: return "method not implemented"
        case .noRoute: return "no such route"
        case .methodNotAllowed: return "method not allowed on this route"
        case .payloadTooLarge: return "request body too large"
        case .bodyTimeout: return "request body not received in time"
        case .busy: return "the server is busy; retry later"
        case .responderDropped: return "the request was not answered"
        case .invalidAddress, .socket, .tls, .tlsNotEnabled, .metricsShards: return "internal server error"
        }
    }

    /// Headers the answer carries besides the body's (`Allow` of a 405, `Retry-After` of a 503).
    public var answerHeaders: [(name: String, value: String)] {
        switch self {
        case .methodNotAllowed(let allow): return [("Allow", allow.joined(separator: ", "))]
        case .busy: return [("Retry-After", "1")]
        default: return []
        }
    }

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .invalidAddress(let a): return "invalid listen address \(a)"
        case .socket(let call, let e): return "\(call) failed: \(String(cString: strerror(e)))"
        case .tls(let what, let reason): return "TLS \(what): \(reason)"
        case .tlsNotEnabled: return "TLS is not enabled on this server"
        case .metricsShards(let have, let loops): return "the metrics have \(have) shards for \(loops) event loops"
        default: return "\(status) \(code): \(message)"
        }
    }
}
