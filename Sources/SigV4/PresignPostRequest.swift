/// What a browser form upload (S3 POST Object) may send: one key, optionally a content type, a size
/// range and the status S3 answers with, valid for `expires` seconds.
public struct PresignPostRequest: Sendable {
    /// How the policy constrains the `key` field.
    public enum KeyRule: Sendable, Equatable {
        /// Exactly this key: `{"key": key}`.
        case exact(String)
        /// Any key starting with this prefix: `["starts-with", "$key", prefix]` (the form's `key`
        /// field is then the prefix followed by `${filename}`).
        case prefix(String)
    }

    /// The bucket name.
    public var bucket: String
    /// The key rule.
    public var key: KeyRule
    /// The `Content-Type` the form must send, exactly; nil leaves it free.
    public var contentType: String?
    /// The inclusive range of accepted file sizes in bytes (`content-length-range`); nil leaves it free.
    public var contentLength: ClosedRange<Int64>?
    /// `success_action_status`: 200, 201 (an XML body with the ETag) or 204 (S3's default); nil omits it.
    public var successActionStatus: Int?
    /// Lifetime in seconds, `1...604800`.
    public var expires: Int

    /// A form upload to presign.
    public init(
        bucket: String, key: KeyRule, contentType: String? = nil, contentLength: ClosedRange<Int64>? = nil,
        successActionStatus: Int? = 201, expires: Int
    ) {
        self.bucket = bucket
        self.key = key
        self.contentType = contentType
        self.contentLength = contentLength
        self.successActionStatus = successActionStatus
        self.expires = expires
    }
}
