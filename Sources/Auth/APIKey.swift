import Crypto

/// A configured API key for server-to-server callers: its id and the SHA-256 of the key.
///
/// The key itself is never configured, only its digest, so a leaked configuration does not leak
/// the key (for a key with enough entropy: use at least 32 random bytes).
public struct APIKey: Sendable, Equatable {
    /// The caller id, which becomes `Principal.subject`.
    public let id: String
    /// SHA-256 of the key's UTF-8 bytes.
    public let sha256: SHA256Digest

    /// A key from its id and digest.
    public init(id: String, sha256: SHA256Digest) {
        self.id = id
        self.sha256 = sha256
    }

    /// A key from its id and the digest as 64 hexadecimal digits (either case), or nil.
    public init?(id: String, sha256Hex: String) {
        guard sha256Hex.utf8.count == 64, let bytes = Hex.decode(sha256Hex), let digest = SHA256Digest(bytes: bytes)
        else { return nil }
        self.init(id: id, sha256: digest)
    }
}
