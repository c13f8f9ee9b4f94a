/// What one owner reserved in one UTC day (`QuotaStore.quotaUsage`).
public struct QuotaUsage: Sendable, Equatable {
    /// Uploads reserved.
    public let uploads: Int64
    /// Bytes reserved.
    public let bytes: Int64

    /// A usage.
    public init(uploads: Int64, bytes: Int64) {
        self.uploads = uploads
        self.bytes = bytes
    }
}
