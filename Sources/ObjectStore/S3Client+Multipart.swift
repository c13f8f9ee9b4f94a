import Crypto
import HTTPClient

extension S3Client {
    /// The most parts ListParts is asked for per page (S3's maximum).
    public static let maxPartsPerPage = 1000

    /// CreateMultipartUpload of `key`: the new upload's ID.
    ///
    /// Not idempotent: a request that reached the store and lost its answer has made an upload whose
    /// ID nobody knows, and a retry would make another. So it is retried only when the store refused
    /// it without acting (503, 429, `SlowDown`), never after a timeout or a broken connection (an
    /// upload left behind that way is aborted by the janitor, ListMultipartUploads on the prefix).
    /// `metadata` names are sent as `x-amz-meta-<name>`; values must be printable ASCII.
    public func createMultipartUpload(
        key: String, contentType: String? = nil, metadata: [(name: String, value: String)] = []
    ) throws(ObjectStoreError) -> String {
        var headers: [(name: String, value: String)] = []
        if let contentType { headers.append(("Content-Type", contentType)) }
        for (name, value) in metadata { headers.append(("x-amz-meta-" + name.lowercased(), value)) }
        return try perform(
            "POST", key: key, query: [("uploads", "")], headers: headers,
            retryable: { error in
                guard case .status(let status, let code) = error else { return false }
                return status == 503 || status == 429 || code == "SlowDown"
            }
        ) { (response) throws(ObjectStoreError) -> String in
            guard response.status == 200 else { throw Self.multipartError(response) }
            return try MultipartXML.uploadId(fromInitiate: response.body)
        }
    }

    /// ListParts of an upload, every page (`max-parts` 1000, following `NextPartNumberMarker` while
    /// `IsTruncated`): all parts uploaded so far, in part-number order, ETags quoted as S3 sends them.
    ///
    /// Idempotent, retried per page. An unknown upload is `.multipart(.noSuchUpload)` (Ceph RGW 16.2
    /// answers 404 `NoSuchKey` for it: mapped the same). A store that
    /// answers a truncated page without moving the marker forward is `.malformedResponse` (no loop).
    public func listParts(key: String, uploadId: String) throws(ObjectStoreError) -> [UploadedPart] {
        try listParts(key: key, uploadId: uploadId, pageSize: Self.maxPartsPerPage)
    }

    /// `listParts` with `pageSize` parts per page (tests use small pages).
    func listParts(key: String, uploadId: String, pageSize: Int) throws(ObjectStoreError) -> [UploadedPart] {
        precondition((1...Self.maxPartsPerPage).contains(pageSize))
        var parts = [UploadedPart]()
        var marker = 0
        while true {
            var query: [(name: String, value: String)] = [("uploadId", uploadId), ("max-parts", String(pageSize))]
            if marker > 0 { query.append(("part-number-marker", String(marker))) }
            let page = try perform("GET", key: key, query: query) {
                (response) throws(ObjectStoreError) -> MultipartXML.PartsPage in
                if response.status == 404 && S3XML.errorCode(response.body) == "NoSuchKey" {
                    throw .multipart(.noSuchUpload)
                }
                guard response.status == 200 else { throw Self.multipartError(response) }
                return try MultipartXML.partsPage(response.body, maxParts: pageSize, after: marker)
            }
            parts.append(contentsOf: page.parts)
            guard let next = page.nextPartNumberMarker else { return parts }
            marker = next
        }
    }

    /// CompleteMultipartUpload: joins `parts` (numbers and ETags as UploadPart or ListParts gave
    /// them, sent in the given order) into the object at `key`.
    ///
    /// S3 may answer 200 and then an `<Error>` body: that is a failure (`.status(200, code:)`,
    /// retried for `InternalError`, or a `.multipart` refusal). Completion is retryable with care:
    /// when an attempt may have reached the store (a timeout, a broken connection, a 5xx) and a
    /// retry then hears `NoSuchUpload`, the first attempt may have completed the upload. The object
    /// is then read with a HEAD, and its ETag compared with the multipart ETag the parts give
    /// (MD5 of the parts' binary MD5s, then `-count`); equal means done. `InvalidPart`,
    /// `InvalidPartOrder` and `EntityTooSmall` are `.multipart` refusals, never retried (Ceph RGW
    /// 16.2 does not check the order: send the parts sorted by number). An empty `<ETag>` in the
    /// answer (RGW 16.2 sends one) is filled in from a HEAD of the object. Many parts
    /// can take the store longer than a HEAD does: give this client a `requestTimeoutMs` to match.
    public func completeMultipartUpload(
        key: String, uploadId: String, parts: [(partNumber: Int, etag: String)]
    ) throws(ObjectStoreError) -> CompletedUpload {
        guard !parts.isEmpty, parts.count <= 10_000 else {
            throw .signing("a completion lists 1 to 10000 parts, not \(parts.count)")
        }
        guard parts.allSatisfy({ (1...10_000).contains($0.partNumber) && !$0.etag.isEmpty }) else {
            throw .signing("a part number is 1...10000 and an ETag is not empty")
        }
        let body = MultipartXML.completeBody(parts)
        var retried = false
        let completed: CompletedUpload
        do throws(ObjectStoreError) {
            completed = try perform(
                "POST", key: key, query: [("uploadId", uploadId)], headers: [("Content-Type", "application/xml")],
                body: body, payloadHash: SHA256.hash(body).hex,
                retryable: { _ in
                    retried = true
                    return true
                }
            ) { (response) throws(ObjectStoreError) -> CompletedUpload in
                guard response.status == 200 else { throw Self.multipartError(response) }
                return try MultipartXML.completed(response.body, key: key)
            }
        } catch .multipart(.noSuchUpload) where retried {
            guard let expected = Self.multipartETag(parts.map(\.etag)), let object = try head(key: key),
                object.etag == expected
            else { throw .multipart(.noSuchUpload) }
            return CompletedUpload(key: key, etag: "\"\(expected)\"", location: nil)
        }
        guard completed.etag.isEmpty else { return completed }
        // Ceph RGW 16.2 answers an empty <ETag>: the object's own HEAD has it.
        guard let object = try head(key: key) else {
            throw .malformedResponse("a completed multipart object is missing right after its completion")
        }
        return CompletedUpload(key: completed.key, etag: "\"\(object.etag)\"", location: completed.location)
    }

    /// AbortMultipartUpload: removes the upload and its parts.
    ///
    /// Idempotent and retried. An unknown upload is `.multipart(.noSuchUpload)`, unless an earlier
    /// attempt of this call may have aborted it (the answer lost): then the upload is gone as asked.
    public func abortMultipartUpload(key: String, uploadId: String) throws(ObjectStoreError) {
        var retried = false
        do throws(ObjectStoreError) {
            try perform(
                "DELETE", key: key, query: [("uploadId", uploadId)],
                retryable: { _ in
                    retried = true
                    return true
                }
            ) { (response) throws(ObjectStoreError) in
                guard response.status == 204 || response.status == 200 else { throw Self.multipartError(response) }
            }
        } catch .multipart(.noSuchUpload) where retried {
            return
        }
    }

    /// ListMultipartUploads: one page (at most `maxUploads`, up to 1000) of the uploads in progress
    /// whose keys start with `prefix`, after (`keyMarker`, `uploadIdMarker`).
    ///
    /// For the janitor: page on with the returned `nextKeyMarker` and `nextUploadIdMarker` while
    /// `isTruncated`, and abort those whose `initiated` is too old. Idempotent, retried.
    public func listMultipartUploads(
        prefix: String, keyMarker: String? = nil, uploadIdMarker: String? = nil, maxUploads: Int = 1000
    ) throws(ObjectStoreError) -> MultipartUploadPage {
        precondition((1...1000).contains(maxUploads))
        var query: [(name: String, value: String)] = [
            ("uploads", ""), ("prefix", prefix), ("max-uploads", String(maxUploads)),
        ]
        if let keyMarker {
            query.append(("key-marker", keyMarker))
            if let uploadIdMarker { query.append(("upload-id-marker", uploadIdMarker)) }
        }
        return try perform("GET", key: "", query: query) {
            (response) throws(ObjectStoreError) -> MultipartUploadPage in
            guard response.status == 200 else { throw Self.multipartError(response) }
            return try MultipartXML.uploadsPage(response.body, maxUploads: maxUploads)
        }
    }

    /// A `.multipart` refusal when S3's code names one, else the status error.
    static func multipartError(_ response: HTTPResponse) -> ObjectStoreError {
        if let refusal = MultipartRefusal(code: S3XML.errorCode(response.body)) { return .multipart(refusal) }
        return statusError(response)
    }

    /// The ETag S3 gives an object completed from parts with these ETags (MD5 of the concatenated
    /// binary MD5s, `-`, the count), unquoted; nil when a part's ETag is not an MD5 (SSE-KMS, checksums).
    static func multipartETag(_ partETags: [String]) -> String? {
        var joined = [UInt8]()
        joined.reserveCapacity(16 * partETags.count)
        for etag in partETags {
            guard let digest = Hex.decode(unquote(etag)), digest.count == 16 else { return nil }
            joined.append(contentsOf: digest)
        }
        return Hex.encode(MD5.hash(joined)) + "-\(partETags.count)"
    }
}
