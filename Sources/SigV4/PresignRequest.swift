/// What to presign: one request on one object, valid for `expires` seconds.
public struct PresignRequest: Sendable {
    /// `PUT`, `GET`, `HEAD` or `DELETE` (any upper-case token is accepted, e.g. `POST`).
    public var method: String
    /// The bucket name.
    public var bucket: String
    /// The object key, raw (not percent-encoded): the signer encodes it exactly once.
    public var key: String
    /// Lifetime in seconds, `1...604800`.
    public var expires: Int
    /// Headers the client must send unchanged, signed into the URL (names in any case): e.g.
    /// `content-type`, `content-length`, `content-md5`, `x-amz-checksum-sha256`, `if-none-match`.
    public var signedHeaders: [(name: String, value: String)]
    /// Extra query parameters (raw), e.g. `partNumber` and `uploadId` for a multipart part. They
    /// come first in the URL; names starting with `X-Amz-` are reserved.
    public var query: [(name: String, value: String)]

    /// A request to presign.
    public init(
        method: String, bucket: String, key: String, expires: Int,
        signedHeaders: [(name: String, value: String)] = [], query: [(name: String, value: String)] = []
    ) {
        self.method = method
        self.bucket = bucket
        self.key = key
        self.expires = expires
        self.signedHeaders = signedHeaders
        self.query = query
    }
}
