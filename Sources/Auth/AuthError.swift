/// Why the verification keys could not be loaded (at start-up: the server must not run without them).
///
/// Messages name files and keys by path and position, never by their contents.
public enum AuthError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A key file could not be read; `reason` is the system's text.
    case cannotReadKeyFile(path: String, reason: String)
    /// A PEM file holds no usable public key, or a block that is not one.
    case invalidPEMFile(path: String, reason: String)
    /// The JWKS file is not a JWK Set (RFC 7517, section 5), or one of its keys is unusable.
    case invalidJWKS(path: String, reason: String)
    /// Two keys of the same type share a `kid`, so a token could not name one of them.
    case duplicateKeyID(kid: String, sources: [String])
    /// The HS256 secret is shorter than the 32 bytes RFC 7518, section 3.2 requires.
    case weakHS256Secret(bytes: Int)

    /// One line for the start-up log.
    public var description: String {
        switch self {
        case .cannotReadKeyFile(let path, let reason): return "cannot read key file \(path): \(reason)"
        case .invalidPEMFile(let path, let reason): return "key file \(path): \(reason)"
        case .invalidJWKS(let path, let reason): return "JWKS file \(path): \(reason)"
        case .duplicateKeyID(let kid, let sources):
            return "kid \(kid) is used by more than one key of the same type (\(sources.joined(separator: ", ")))"
        case .weakHS256Secret(let bytes): return "the HS256 secret has \(bytes) bytes; at least 32 are required"
        }
    }
}
