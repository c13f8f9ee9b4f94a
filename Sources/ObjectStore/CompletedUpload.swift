/// What CompleteMultipartUpload made.
public struct CompletedUpload: Sendable, Equatable {
    /// The object's key.
    public var key: String
    /// The object's ETag as the store sent it, quotes included (`"…-3"` for three parts).
    public var etag: String
    /// The object's URL as the store reports it (`Location`); nil when absent, or when a retried
    /// completion was confirmed by a HEAD instead of by its own answer.
    public var location: String?

    /// A result from its fields.
    public init(key: String, etag: String, location: String?) {
        self.key = key
        self.etag = etag
        self.location = location
    }
}
