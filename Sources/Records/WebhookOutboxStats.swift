/// What the webhook outbox holds, for the metrics (`WebhookOutbox.webhookOutboxStats`). Delivered rows are
/// not counted: there may be many of them until they are pruned, and no metric needs their number.
public struct WebhookOutboxStats: Sendable, Equatable {
    /// Deliveries not made yet.
    public var pending: Int
    /// When the event of the oldest pending delivery happened, or nil.
    public var oldestPendingCreatedAtMs: Int64?
    /// Deliveries that failed for good, kept until pruned or redelivered.
    public var failed: Int

    /// Stats from their fields.
    public init(pending: Int, oldestPendingCreatedAtMs: Int64?, failed: Int) {
        self.pending = pending
        self.oldestPendingCreatedAtMs = oldestPendingCreatedAtMs
        self.failed = failed
    }
}
