import Crypto
import ObjectStore

/// Calls to the store that only tests make (the server never creates buckets or objects or probes the
/// bucket this way: apps upload straight to storage, and readiness uses `probeBucket`).
extension S3Client {
    /// HeadBucket: succeeds when the bucket exists and the credentials may use it (readiness).
    public func headBucket() throws(ObjectStoreError) {
        try perform("HEAD", key: "") { (response) throws(ObjectStoreError) in
            guard response.status == 200 else { throw Self.statusError(response) }
        }
    }

    /// CreateBucket of the client's bucket (a test that starts the server before its bucket exists).
    public func createBucket() throws(ObjectStoreError) {
        try perform("PUT", key: "", payloadHash: SHA256.hash([]).hex) { (response) throws(ObjectStoreError) in
            guard response.status == 200 else { throw Self.statusError(response) }
        }
    }

    /// DeleteBucket of the client's (empty) bucket; a bucket already gone counts as deleted.
    public func deleteBucket() throws(ObjectStoreError) {
        try perform("DELETE", key: "") { (response) throws(ObjectStoreError) in
            guard response.status == 204 || response.status == 404 else { throw Self.statusError(response) }
        }
    }

    /// PutObject of `bytes` (for tests and tools; uploads from apps go straight to the store),
    /// signed with the body's real SHA-256. Returns what was stored.
    @discardableResult
    public func put(key: String, bytes: [UInt8], contentType: String? = nil) throws(ObjectStoreError) -> ObjectInfo {
        let payloadHash = SHA256.hash(bytes).hex
        var headers: [(name: String, value: String)] = []
        if let contentType { headers.append(("Content-Type", contentType)) }
        return try perform("PUT", key: key, headers: headers, body: bytes, payloadHash: payloadHash) {
            (response) throws(ObjectStoreError) -> ObjectInfo in
            guard response.status == 200 else { throw Self.statusError(response) }
            guard let etag = response.header("ETag") else { throw .malformedResponse("a PUT answered without an ETag") }
            return ObjectInfo(size: Int64(bytes.count), contentType: contentType, etag: Self.unquote(etag))
        }
    }
}
