/// A multipart upload this server created (schema version 7): what the multipart janitor may abort, and
/// what a retried completion needs after storage completed the upload but no record was written.
public struct MultipartUploadEntry: Sendable, Equatable {
    /// One part as the completion sent it.
    public struct Part: Sendable, Equatable {
        /// The part number, 1 to 10,000.
        public var number: Int
        /// The part's ETag as UploadPart or ListParts gave it (quotes kept).
        public var etag: String

        /// A part from its fields.
        public init(number: Int, etag: String) {
            self.number = number
            self.etag = etag
        }
    }

    /// The object key the upload creates.
    public var objectKey: String
    /// The store's upload id.
    public var uploadId: String
    /// The intent's image key.
    public var imageKey: String
    /// The caller that created it.
    public var ownerId: String
    /// When CreateMultipartUpload answered.
    public var createdAtMs: Int64
    /// The parts the completion sent, in order, once a completion began (`noteCompletion`): a HEAD of the
    /// object whose ETag is their composite proves the upload completed.
    public var completionParts: [Part]?
    /// When the completion began.
    public var completingAtMs: Int64?

    /// An entry from its fields.
    public init(
        objectKey: String, uploadId: String, imageKey: String, ownerId: String, createdAtMs: Int64,
        completionParts: [Part]? = nil, completingAtMs: Int64? = nil
    ) {
        self.objectKey = objectKey
        self.uploadId = uploadId
        self.imageKey = imageKey
        self.ownerId = ownerId
        self.createdAtMs = createdAtMs
        self.completionParts = completionParts
        self.completingAtMs = completingAtMs
    }
}
