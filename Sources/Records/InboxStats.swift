/// What the inbox holds, for the metrics (`EventInbox.inboxStats`).
public struct InboxStats: Sendable, Equatable {
    /// Entries waiting (or being processed).
    public var pending: Int
    /// When the oldest pending entry was received (the lag's start), or nil.
    public var oldestPendingReceivedAtMs: Int64?
    /// Entries processed and kept until pruned.
    public var done: Int
    /// Entries rejected and kept until pruned.
    public var rejected: Int

    /// Stats from their fields.
    public init(pending: Int, oldestPendingReceivedAtMs: Int64?, done: Int, rejected: Int) {
        self.pending = pending
        self.oldestPendingReceivedAtMs = oldestPendingReceivedAtMs
        self.done = done
        self.rejected = rejected
    }
}
