import Crypto

/// The JWS algorithms presignd accepts (RFC 7518, section 3.1), named exactly as in a token's `alg`.
///
/// `none` is not one of them and cannot be configured.
public enum JWTAlgorithm: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// HMAC-SHA256 with the shared secret `auth.hs256Secret`.
    case hs256 = "HS256"
    /// RSASSA-PKCS1-v1_5 with SHA-256 and an RSA public key.
    case rs256 = "RS256"
    /// ECDSA on P-256 with SHA-256 and an EC public key.
    case es256 = "ES256"

    /// The name as written in `alg`.
    public var description: String { rawValue }

    /// The public-key scheme for RS256 and ES256; nil for HS256.
    var signatureAlgorithm: SignatureAlgorithm? {
        switch self {
        case .hs256: return nil
        case .rs256: return .rsaPKCS1v15SHA256
        case .es256: return .ecdsaP256SHA256
        }
    }
}
