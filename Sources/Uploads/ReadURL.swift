/// A record's read URL as the routes answer it: the URL, when it stops working, and the policy
/// signed into it.
public struct ReadURL: Sendable, Equatable {
    /// The signed GET URL (or `presign.cdnBaseUrl/key`).
    public let url: String
    /// When the URL stops working, in epoch seconds; nil for a CDN URL (it does not expire).
    public let expiresAt: Int64?
    /// The `Content-Type` storage answers the GET with.
    public let contentType: String
    /// The `Content-Disposition` signed into the URL; nil for a CDN URL (the CDN sets its own headers).
    public let disposition: ReadDisposition?

    /// A read URL from its parts.
    public init(url: String, expiresAt: Int64?, contentType: String, disposition: ReadDisposition?) {
        self.url = url
        self.expiresAt = expiresAt
        self.contentType = contentType
        self.disposition = disposition
    }
}
