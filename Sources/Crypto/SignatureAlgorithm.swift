/// The public-key signature schemes Crypto verifies (those of JWS RS256 and ES256, RFC 7518, section 3,
/// and SHA-1 RSA for Amazon SNS's SignatureVersion 1).
public enum SignatureAlgorithm: Sendable, Equatable, CaseIterable {
    /// RSASSA-PKCS1-v1_5 with SHA-256 (RFC 8017, section 8.2): JWS `RS256`, SNS SignatureVersion 2. Needs an
    /// RSA key.
    case rsaPKCS1v15SHA256
    /// RSASSA-PKCS1-v1_5 with SHA-1 (RFC 8017, section 8.2): Amazon SNS's SignatureVersion 1 only (SHA-1 is
    /// kept for verifying that one format; never offered for tokens). Needs an RSA key.
    case rsaPKCS1v15SHA1
    /// ECDSA on P-256 with SHA-256 (FIPS 186-4), the signature as the 64 bytes r || s, each
    /// big-endian and left-padded to 32 bytes (IEEE P1363; RFC 7518, section 3.4): JWS `ES256`.
    case ecdsaP256SHA256

    /// Whether this scheme signs with keys of `kind`.
    public func usesKeys(of kind: PublicKey.Kind) -> Bool {
        switch (self, kind) {
        case (.rsaPKCS1v15SHA256, .rsa), (.rsaPKCS1v15SHA1, .rsa): return true
        case (.ecdsaP256SHA256, .ecP256): return true
        default: return false
        }
    }
}
