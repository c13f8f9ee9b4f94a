import Crypto

/// One key that can verify tokens: an HMAC secret for HS256, or a public key for RS256 or ES256.
///
/// The material decides the algorithm: an HMAC key is only ever made from the configured HS256
/// secret, never from a public key's bytes, so an HS256 token "signed" with a public key is
/// refused (the algorithm-confusion attack).
public struct VerificationKey: Sendable {
    /// What the key is made of.
    public enum Material: Sendable {
        /// The HS256 secret, prepared for HMAC-SHA256.
        case hmac(HMACKey)
        /// A public key (RSA for RS256, EC P-256 for ES256).
        case publicKey(PublicKey)
    }

    /// The key id that tokens name in `kid`, if the key has one (JWKS keys usually do; PEM keys and
    /// the HS256 secret do not).
    public let kid: String?
    /// The key.
    public let material: Material
    /// Where it came from, for messages: `"keys.pem" block 1`, `"jwks.json" key 2`, `auth.hs256Secret`.
    public let source: String

    /// A key.
    public init(kid: String?, material: Material, source: String) {
        self.kid = kid
        self.material = material
        self.source = source
    }

    /// The only algorithm this key verifies.
    public var algorithm: JWTAlgorithm {
        switch material {
        case .hmac: return .hs256
        case .publicKey(let key):
            switch key.kind {
            case .rsa: return .rs256
            case .ecP256: return .es256
            }
        }
    }

    /// True when `signature` is `algorithm`'s signature of `signingInput` under this key; false
    /// whenever `algorithm` is not this key's algorithm.
    func verifies(
        _ signature: [UInt8], of signingInput: UnsafeRawBufferPointer, algorithm: JWTAlgorithm
    ) -> Bool {
        guard algorithm == self.algorithm else { return false }
        switch material {
        case .hmac(let key):
            let expected = key.authenticate(signingInput)
            return expected.withUnsafeBytes { expectedBytes in
                signature.withUnsafeBytes { ConstantTime.equals(expectedBytes, $0) }
            }
        case .publicKey(let key):
            guard let scheme = algorithm.signatureAlgorithm else { return false }
            return signature.withUnsafeBytes { key.isValidSignature($0, for: signingInput, algorithm: scheme) }
        }
    }
}
