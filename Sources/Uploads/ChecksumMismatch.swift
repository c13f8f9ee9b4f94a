/// Why a confirmation refused an object's bytes as not the declared ones: the digest the client declared
/// when the URL was issued, against the one the object has (as storage reported it, or as presignd
/// read it).
public struct ChecksumMismatch: Sendable, Equatable {
    /// Which digest differs.
    public let digest: DeclaredDigest
    /// The declared digest, base64.
    public let declared: String
    /// The object's digest, base64.
    public let actual: String

    /// A mismatch of `digest`.
    public init(digest: DeclaredDigest, declared: String, actual: String) {
        self.digest = digest
        self.declared = declared
        self.actual = actual
    }

    /// One sentence for the client, naming both digests (never the object's bytes).
    public var message: String {
        "the object's \(digest.algorithm) is \(actual), not the declared \(declared) (\(digest.member)): "
            + "the bytes uploaded are not the declared ones; the object was deleted"
    }
}
