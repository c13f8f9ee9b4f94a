import Webhooks

/// How the deliverer works (from `webhooks.*` and `records.leaseTtlMs`).
public struct WebhookDeliveryOptions: Sendable {
    /// The longest one attempt may take, connect to last response byte, in milliseconds.
    public var timeoutMs: Int
    /// When failed attempts are tried again, and how many there are.
    public var schedule: RetrySchedule
    /// How long delivered and failed deliveries are kept, in milliseconds.
    public var retentionMs: Int64
    /// The pause between passes that found nothing due, in milliseconds.
    public var pollIntervalMs: Int
    /// Requests in flight at once per endpoint.
    public var concurrency: Int
    /// Deliveries taken per round of a pass.
    public var batchSize: Int
    /// How long an endpoint's lease lasts without renewal, in milliseconds (renewed every third of it).
    public var leaseTtlMs: Int64
    /// This process's id in the lease rows.
    public var holder: String
    /// A PEM file of CAs trusted for https endpoints; nil: the system's store.
    public var caFile: String?
    /// The nice value of the senders' threads (0 to 19): above the server's 0, so that on busy CPUs the
    /// requests, commits and loops go first and deliveries take the time left (they catch up when the
    /// load falls; `presignd_webhook_oldest_pending_age_seconds` shows the lag).
    public var senderNice: Int32

    /// Options; `timeoutMs` must stay under half of `leaseTtlMs` (the configuration checks it).
    public init(
        timeoutMs: Int, schedule: RetrySchedule, retentionMs: Int64, pollIntervalMs: Int, concurrency: Int,
        batchSize: Int = 64, leaseTtlMs: Int64, holder: String, caFile: String? = nil, senderNice: Int32 = 10
    ) {
        self.timeoutMs = max(1, timeoutMs)
        self.schedule = schedule
        self.retentionMs = retentionMs
        self.pollIntervalMs = max(1, pollIntervalMs)
        self.concurrency = max(1, concurrency)
        self.batchSize = max(1, batchSize)
        self.leaseTtlMs = max(1, leaseTtlMs)
        self.holder = holder
        self.caFile = caFile
        self.senderNice = min(19, max(0, senderNice))
    }
}
