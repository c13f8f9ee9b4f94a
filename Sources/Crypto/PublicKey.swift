internal import COpenSSL

/// A public key for verifying signatures: RSA (2048 bits or more) or ECDSA on P-256.
///
/// Owns an OpenSSL `EVP_PKEY`, freed in `deinit`. Every way to make one (PEM, JWK numbers) checks
/// the key's type and size first, so a `PublicKey` is always one that `SignatureAlgorithm` can use.
/// `Sendable`: the key is never changed after it is made, and OpenSSL allows concurrent
/// verifications with one `EVP_PKEY` as long as each has its own digest context (as here).
public final class PublicKey: @unchecked Sendable {
    /// The type of a key.
    public enum Kind: Sendable, Equatable, CustomStringConvertible {
        /// RSA with a modulus of `bits` bits.
        case rsa(bits: Int)
        /// An elliptic-curve key on NIST P-256 (secp256r1, prime256v1).
        case ecP256

        /// `RSA-2048`, `EC P-256`.
        public var description: String {
            switch self {
            case .rsa(let bits): return "RSA-\(bits)"
            case .ecP256: return "EC P-256"
            }
        }
    }

    /// Smallest RSA modulus accepted, in bits (RFC 7518, section 3.3).
    public static let minimumRSABits = 2048
    /// Largest RSA modulus accepted, in bits: bounds the cost of one verification.
    public static let maximumRSABits = 16384

    /// The OpenSSL key.
    let handle: OpaquePointer
    /// The key's type.
    public let kind: Kind

    /// Takes ownership of `handle` when it is a supported public key; frees it and throws otherwise.
    init(adopting handle: OpaquePointer) throws(CryptoError) {
        do {
            kind = try Self.checkedKind(of: handle)
        } catch {
            EVP_PKEY_free(handle)
            throw error
        }
        self.handle = handle
    }

    deinit {
        EVP_PKEY_free(handle)
    }

    /// The kind of `handle`, after checking that it is a supported and valid public key.
    static func checkedKind(of handle: OpaquePointer) throws(CryptoError) -> Kind {
        switch EVP_PKEY_get_base_id(handle) {
        case EVP_PKEY_RSA:
            let bits = Int(EVP_PKEY_get_bits(handle))
            guard bits >= minimumRSABits else {
                throw .unsupportedKey(reason: "an RSA key of \(bits) bits (at least \(minimumRSABits) are required)")
            }
            guard bits <= maximumRSABits else {
                throw .unsupportedKey(reason: "an RSA key of \(bits) bits (at most \(maximumRSABits) are accepted)")
            }
            return .rsa(bits: bits)
        case EVP_PKEY_EC:
            var name = [CChar](repeating: 0, count: 64)
            var length = 0
            guard EVP_PKEY_get_group_name(handle, &name, name.count, &length) == 1 else {
                ERR_clear_error()
                throw .unsupportedKey(reason: "an EC key without a named curve")
            }
            let curve = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard curve == "prime256v1" else {
                throw .unsupportedKey(reason: "an EC key on curve \(curve) (only P-256 is accepted)")
            }
            guard let context = EVP_PKEY_CTX_new_from_pkey(nil, handle, nil) else {
                throw .invalidKey(reason: OpenSSLErrors.oldest())
            }
            defer { EVP_PKEY_CTX_free(context) }
            guard EVP_PKEY_public_check(context) == 1 else {
                ERR_clear_error()
                throw .invalidKey(reason: "the EC public point is not a valid point of P-256")
            }
            return .ecP256
        case EVP_PKEY_RSA_PSS:
            throw .unsupportedKey(reason: "an RSA-PSS key (RS256 needs a plain RSA key)")
        case EVP_PKEY_ED25519, EVP_PKEY_ED448:
            throw .unsupportedKey(reason: "an EdDSA key (only RSA and EC P-256 keys are accepted)")
        default:
            throw .unsupportedKey(reason: "a key of an unsupported type (only RSA and EC P-256 keys are accepted)")
        }
    }
}
