/// Why a request could not be parsed; each case maps to the status the server answers with.
///
/// The `String` contexts are fixed texts written in this module (never client bytes), so they are
/// safe to show to a client.
public enum ParseError: Error, Sendable, Equatable {
    /// Malformed syntax or a framing the strict profile forbids (400).
    case badRequest(String)
    /// The head (or a trailer section) is over its byte or line limit (431).
    case headerTooLarge
    /// The request-target is over `maxTargetBytes` (414).
    case uriTooLong
    /// A well-formed version other than HTTP/1.0 and HTTP/1.1 (505).
    case versionNotSupported
    /// Something valid we do not implement, e.g. a transfer coding other than `chunked` (501).
    case notImplemented(String)
    /// A chunked body over the decoder's `maxBodyBytes` (413).
    case payloadTooLarge

    /// The HTTP status code the server answers with.
    public var status: Int {
        switch self {
        case .badRequest: return 400
        case .headerTooLarge: return 431
        case .uriTooLong: return 414
        case .versionNotSupported: return 505
        case .notImplemented: return 501
        case .payloadTooLarge: return 413
        }
    }

    /// A short explanation, safe to show to a client.
    public var reason: String {
        switch self {
        case .badRequest(let context): return context
        case .headerTooLarge: return "request header fields too large"
        case .uriTooLong: return "request target too long"
        case .versionNotSupported: return "HTTP version not supported"
        case .notImplemented(let context): return context
        case .payloadTooLarge: return "request body too large"
        }
    }
}
