import Crypto

/// Digests a client declares for its upload, as S3 takes them: standard padded base64 (RFC 4648,
/// section 4) of the raw digest bytes, in its one canonical spelling (Crypto's `Base64.decode`). Pure.
enum Base64Digest {
    /// Whether `text` is the canonical base64 of exactly `count` bytes.
    static func isDigest(_ text: String, bytes count: Int) -> Bool {
        Base64.decode(text)?.count == count
    }
}
