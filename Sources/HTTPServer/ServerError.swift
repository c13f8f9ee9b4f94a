#if canImport(Glibc)
    import Glibc
#endif

/// Errors of the server's I/O shell.
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

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .invalidAddress(let a): return "invalid listen address \(a)"
        case .socket(let call, let e): return "\(call) failed: \(String(cString: strerror(e)))"
        case .tls(let what, let reason): return "TLS \(what): \(reason)"
        case .tlsNotEnabled: return "TLS is not enabled on this server"
        }
    }
}
