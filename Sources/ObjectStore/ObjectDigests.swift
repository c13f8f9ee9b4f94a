/// The digests of an object's bytes as presignd read them from storage (`S3Client.digests`), and how
/// many bytes there were.
public struct ObjectDigests: Sendable, Equatable {
    /// SHA-256 of the bytes (32 bytes).
    public var sha256: [UInt8]
    /// MD5 of the bytes (16 bytes).
    public var md5: [UInt8]
    /// Bytes read.
    public var size: Int64

    /// Digests from their parts.
    public init(sha256: [UInt8], md5: [UInt8], size: Int64) {
        self.sha256 = sha256
        self.md5 = md5
        self.size = size
    }
}
