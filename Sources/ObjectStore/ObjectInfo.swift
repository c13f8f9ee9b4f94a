/// What the store says about one object: its size, content type and entity tag, and what it says of its
/// integrity (its SHA-256, when asked and kept; its server-side encryption).
public struct ObjectInfo: Sendable, Equatable {
    /// The object's size in bytes (for a ranged GET, the whole object's, from `Content-Range`).
    public var size: Int64
    /// The `Content-Type` stored with the object, when the store sent one.
    public var contentType: String?
    /// The entity tag without its quotes (an MD5 hex digest for single-part uploads).
    public var etag: String
    /// The object's SHA-256 as the store computed it at upload (`x-amz-checksum-sha256`, base64 of 32
    /// bytes), when the request asked for it (`x-amz-checksum-mode: ENABLED`) and the store keeps a
    /// checksum of the whole object: a multipart object's composite checksum (`…-N`, or
    /// `x-amz-checksum-type: COMPOSITE`) is not one, and is left out.
    public var checksumSHA256: String?
    /// The server-side encryption the store names (`x-amz-server-side-encryption`: `AES256`, `aws:kms`,
    /// `aws:kms:dsse`), or `SSE-C` for a customer key; nil when it names none.
    public var encryption: String?

    /// An object description from its parts.
    public init(
        size: Int64, contentType: String?, etag: String, checksumSHA256: String? = nil, encryption: String? = nil
    ) {
        self.size = size
        self.contentType = contentType
        self.etag = etag
        self.checksumSHA256 = checksumSHA256
        self.encryption = encryption
    }

    /// The MD5 of the object's bytes, from its ETag, when the ETag is one: 32 hex digits (a multipart
    /// object's has `-N`), and no encryption that makes it something else (SSE-KMS, DSSE-KMS and SSE-C
    /// objects have ETags that are not their MD5; plain and SSE-S3 objects do: AWS's `ETag` reference).
    /// Lower-case hex; nil otherwise.
    public var md5FromETag: String? {
        if let encryption, encryption != "AES256" { return nil }
        let hex = etag.lowercased()
        guard hex.utf8.count == 32, hex.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) })
        else { return nil }
        return hex
    }
}
