import SigV4

/// An issued upload URL: what every issuing route answers with, in its own dialect.
public struct IssuedURL: Sendable {
    /// The signed URL and the headers to send.
    public let presigned: PresignedURL
    /// The object key.
    public let key: String
    /// The client's image key (nil for a key the server made).
    public let imageKey: String?
    /// When the URL expires, in milliseconds since the epoch: its `X-Amz-Date` plus the lifetime it was
    /// signed with (shorter than asked when the credentials expire sooner), which is what storage checks.
    public var expiresAtMs: Int64 { presigned.expiresAt * 1000 }
}
