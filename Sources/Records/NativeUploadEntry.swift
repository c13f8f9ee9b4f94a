/// An upload of the native multipart API (`POST /uploads`, schema version 14): what the app declared,
/// how it is cut into parts, and how far it got. The reconciler completes the ones storage holds whole;
/// `GET /uploads/{uploadId}` answers from it and storage's ListParts.
public struct NativeUploadEntry: Sendable, Equatable {
    /// Where an upload is.
    public enum State: String, Sendable, Equatable, CaseIterable {
        /// Parts may still come.
        case uploading
        /// Completed and recorded (`recordId`).
        case completed
        /// Aborted: by its owner, or by the server when its parts broke the rules (`reason`).
        case aborted
        /// Never completed within its lifetime (`uppy.abortAfterSeconds`): the multipart janitor aborts it.
        case expired
    }

    /// Storage's upload id (the API's `uploadId`).
    public var uploadId: String
    /// The object key the upload creates.
    public var objectKey: String
    /// The caller that created it.
    public var ownerId: String
    /// The declared size in bytes.
    public var size: Int64
    /// Every part's size but the last one's.
    public var partSize: Int64
    /// When it was created.
    public var createdAtMs: Int64
    /// Where it is.
    public var state: State
    /// Why it was aborted by the server, when it was.
    public var reason: String?
    /// The record made of it, once completed.
    public var recordId: String?
    /// When the reconciler last looked at it (its creation until then).
    public var checkedAtMs: Int64

    /// An entry from its fields.
    public init(
        uploadId: String, objectKey: String, ownerId: String, size: Int64, partSize: Int64, createdAtMs: Int64,
        state: State = .uploading, reason: String? = nil, recordId: String? = nil, checkedAtMs: Int64? = nil
    ) {
        self.uploadId = uploadId
        self.objectKey = objectKey
        self.ownerId = ownerId
        self.size = size
        self.partSize = partSize
        self.createdAtMs = createdAtMs
        self.state = state
        self.reason = reason
        self.recordId = recordId
        self.checkedAtMs = checkedAtMs ?? createdAtMs
    }

    /// How many parts the upload has.
    public var partCount: Int {
        guard partSize > 0 else { return 0 }
        return Int((size + partSize - 1) / partSize)
    }

    /// The size of part `number` (1-based): `partSize`, the last one what is left.
    public func partBytes(_ number: Int) -> Int64 {
        number < partCount ? partSize : size - Int64(partCount - 1) * partSize
    }
}
