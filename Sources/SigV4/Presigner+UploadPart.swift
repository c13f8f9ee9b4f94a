extension Presigner {
    /// The part numbers S3 accepts in a multipart upload.
    public static let partNumbers: ClosedRange<Int> = 1...10_000

    /// Presigns an UploadPart: `PUT /bucket/key?partNumber=N&uploadId=ID`, valid for `expires` seconds.
    ///
    /// `partNumber` and `uploadId` are signed in the canonical query (sorted with the `X-Amz-*`
    /// parameters, as botocore's `generate_presigned_url('upload_part', ...)` does) and come first
    /// in the URL. Nothing but `host` is signed, so a browser may send any `Content-Length`; S3
    /// answers the part's ETag in a response header, which a browser can read only when the bucket's
    /// CORS rule exposes it.
    public func presignUploadPart(
        bucket: String, key: String, uploadId: String, partNumber: Int, expires: Int, now: Int64
    ) throws(SigV4Error) -> PresignedURL {
        guard Self.partNumbers.contains(partNumber) else {
            throw .invalidQuery(name: "partNumber", reason: "\(partNumber) is not in 1...10000")
        }
        guard !uploadId.isEmpty, uploadId.utf8.count <= 1024 else {
            throw .invalidQuery(name: "uploadId", reason: "an upload ID is 1 to 1024 bytes")
        }
        return try presign(
            PresignRequest(
                method: "PUT", bucket: bucket, key: key, expires: expires,
                query: [("partNumber", String(partNumber)), ("uploadId", uploadId)]),
            now: now)
    }
}
