/// The multipart uploads this server created (schema version 7): the multipart janitor aborts only these,
/// and a retried completion finds the parts it sent.
public protocol MultipartLedger: Sendable {
    /// Stores a new upload (durable when this returns: call it before answering the upload id). The same
    /// (object key, upload id) again replaces it.
    func putMultipartUpload(_ upload: MultipartUploadEntry) throws(RecordsError)

    /// The upload with this object key and upload id, or nil (not created by this server, or removed).
    func multipartUpload(objectKey: String, uploadId: String) throws(RecordsError) -> MultipartUploadEntry?

    /// Notes that a completion of the upload begins with `parts` (durable; call it before
    /// CompleteMultipartUpload). False when the upload is not in the ledger. An ETag with a space or a
    /// line feed is `.constraint`.
    func noteCompletion(
        objectKey: String, uploadId: String, parts: [MultipartUploadEntry.Part], nowMs: Int64
    ) throws(RecordsError) -> Bool

    /// Up to `limit` uploads created before `beforeMs`, oldest first: what the janitor aborts.
    func multipartUploads(createdBeforeMs beforeMs: Int64, limit: Int) throws(RecordsError) -> [MultipartUploadEntry]

    /// Removes these uploads (recorded, or aborted); absent ones are ignored. One transaction.
    func removeMultipartUploads(_ uploads: [(objectKey: String, uploadId: String)]) throws(RecordsError)

    // MARK: - Keys noted before creation (schema version 14)

    /// Notes that `objectKey` is about to be created as a multipart upload (durable: call it before
    /// CreateMultipartUpload), so the multipart janitor can abort an upload storage made in the instant
    /// before a crash.
    func noteCreation(objectKey: String, ownerId: String, nowMs: Int64) throws(RecordsError)

    /// Forgets a noted key (its upload is in the ledger now, or its creation failed).
    func forgetCreation(objectKey: String) throws(RecordsError)

    /// Up to `limit` keys noted before `beforeMs`, oldest first.
    func notedCreations(notedBeforeMs beforeMs: Int64, limit: Int) throws(RecordsError) -> [NotedCreation]

    // MARK: - Native uploads (schema version 14)

    /// Stores a new native upload (durable). An upload id already stored is `.constraint`.
    func putNativeUpload(_ upload: NativeUploadEntry) throws(RecordsError)

    /// The native upload with this id, or nil.
    func nativeUpload(uploadId: String) throws(RecordsError) -> NativeUploadEntry?

    /// Settles an upload still `uploading` as `state` (durable); false when it was settled before.
    func settleNativeUpload(
        uploadId: String, state: NativeUploadEntry.State, reason: String?, recordId: String?
    ) throws(RecordsError) -> Bool

    /// Up to `limit` uploads still `uploading` last checked before `beforeMs`, least recently first.
    func openNativeUploads(checkedBeforeMs beforeMs: Int64, limit: Int) throws(RecordsError) -> [NativeUploadEntry]

    /// Notes that the reconciler looked at the upload at `nowMs`.
    func markNativeUploadChecked(uploadId: String, nowMs: Int64) throws(RecordsError)
}

/// A key noted before CreateMultipartUpload (schema version 14).
public struct NotedCreation: Sendable, Equatable {
    /// The object key.
    public var objectKey: String
    /// Who asked for the upload.
    public var ownerId: String
    /// When it was noted.
    public var notedAtMs: Int64

    /// A noted key from its fields.
    public init(objectKey: String, ownerId: String, notedAtMs: Int64) {
        self.objectKey = objectKey
        self.ownerId = ownerId
        self.notedAtMs = notedAtMs
    }
}
