/// One part of a multipart upload as ListParts reports it.
public struct UploadedPart: Sendable, Equatable {
    /// The part number, 1...10000.
    public var partNumber: Int
    /// The part's ETag exactly as the store sent it, quotes included (`"9b2cf535f27731c974343645a3985328"`):
    /// the value CompleteMultipartUpload wants back.
    public var etag: String
    /// The part's size in bytes.
    public var size: Int64
    /// When the part was uploaded, in epoch seconds (`LastModified`, fractions dropped).
    public var lastModified: Int64

    /// A part from its fields.
    public init(partNumber: Int, etag: String, size: Int64, lastModified: Int64) {
        self.partNumber = partNumber
        self.etag = etag
        self.size = size
        self.lastModified = lastModified
    }
}
