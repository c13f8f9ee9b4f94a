/// A presigned URL and the headers the client must send with it.
///
/// Printing it shows the URL without its query: the signature and any token stay out of logs.
public struct PresignedURL: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The URL; its query is in the fixed order `X-Amz-Algorithm, X-Amz-Date, X-Amz-SignedHeaders,
    /// X-Amz-Credential, X-Amz-Expires, (X-Amz-Security-Token,) X-Amz-Signature`, after any extra
    /// parameters.
    public var url: String
    /// The signed headers other than `Host`, in the casing clients send (`Content-Type`), with
    /// the exact values that were signed.
    public var headers: [(name: String, value: String)]
    /// When the URL stops working, in epoch seconds.
    public var expiresAt: Int64

    /// A presigned URL from its parts.
    public init(url: String, headers: [(name: String, value: String)], expiresAt: Int64) {
        self.url = url
        self.headers = headers
        self.expiresAt = expiresAt
    }

    /// The URL up to its query, then `?<redacted>`.
    public var description: String {
        guard let question = url.firstIndex(of: "?") else { return url }
        return String(url[..<question]) + "?<redacted>"
    }

    /// Same as `description`.
    public var debugDescription: String { "PresignedURL(\(description))" }

    /// A mirror that shows only the redacted description.
    public var customMirror: Mirror { Mirror(self, children: ["url": description], displayStyle: .struct) }
}
