/// The bounds of the event inbox.
public struct InboxLimits: Sendable, Equatable {
    /// The largest body an entry holds (larger: `.invalidArgument`; the endpoint answers 413 before).
    public var maxBodyBytes: Int
    /// The most entries pending at once (more: `.unavailable`, so the endpoint answers 503 and the store
    /// delivers again later).
    public var maxPending: Int

    /// 256 KiB per entry (an RGW push holds one record of about 1 KiB, an S3 event at most a few), 100,000
    /// pending.
    public init(maxBodyBytes: Int = 256 * 1024, maxPending: Int = 100_000) {
        self.maxBodyBytes = maxBodyBytes
        self.maxPending = maxPending
    }
}
