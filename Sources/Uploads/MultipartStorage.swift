import ObjectStore

/// The multipart calls of the object store the lifecycle makes: create, list parts, complete and
/// abort an upload, and list the uploads under a prefix (the janitor). `S3Client` is the real one.
public protocol MultipartStorage: Sendable {
    /// CreateMultipartUpload of `key`: the new upload ID.
    func createMultipartUpload(key: String, contentType: String?, metadata: [(name: String, value: String)])
        throws(ObjectStoreError) -> String

    /// Every part uploaded so far (every page).
    func listParts(key: String, uploadId: String) throws(ObjectStoreError) -> [UploadedPart]

    /// CompleteMultipartUpload with `parts` in order.
    func completeMultipartUpload(key: String, uploadId: String, parts: [(partNumber: Int, etag: String)])
        throws(ObjectStoreError) -> CompletedUpload

    /// AbortMultipartUpload.
    func abortMultipartUpload(key: String, uploadId: String) throws(ObjectStoreError)

    /// One page of the uploads under `prefix`.
    func listMultipartUploads(prefix: String, keyMarker: String?, uploadIdMarker: String?, maxUploads: Int)
        throws(ObjectStoreError) -> MultipartUploadPage
}

extension S3Client: MultipartStorage {}
