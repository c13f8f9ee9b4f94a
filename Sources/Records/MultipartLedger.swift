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
}
