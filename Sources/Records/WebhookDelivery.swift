/// One event's delivery to one endpoint, as the outbox holds it (schema version 12).
public struct WebhookDelivery: Sendable, Equatable {
    /// Where a delivery stands.
    public enum State: String, Sendable, Equatable, CaseIterable {
        /// Not delivered yet: due at `dueAtMs` (again, after a failed attempt).
        case pending
        /// The endpoint answered 2xx.
        case delivered
        /// Every attempt failed (`webhooks.maxAttempts`): kept until pruned, or redelivered by an operator.
        case failed
    }

    /// The row's number: increasing in the order events were written (the order of one subject's events).
    public var seq: Int64
    /// The event's id (`webhook-id`).
    public var eventId: String
    /// The endpoint's name.
    public var endpoint: String
    /// The event's type.
    public var type: String
    /// What the event is about (an image key).
    public var subject: String
    /// The request body.
    public var body: [UInt8]
    /// When the event happened (epoch ms).
    public var createdAtMs: Int64
    /// Where it stands.
    public var state: State
    /// Attempts made so far.
    public var attempts: Int
    /// When it is due (pending), epoch ms.
    public var dueAtMs: Int64
    /// What the last failed attempt met (a status, a timeout, a refused connection), if any.
    public var lastError: String?
    /// When it was delivered or failed for good (epoch ms).
    public var finishedAtMs: Int64?

    /// A delivery from its fields.
    public init(
        seq: Int64, eventId: String, endpoint: String, type: String, subject: String, body: [UInt8],
        createdAtMs: Int64, state: State, attempts: Int, dueAtMs: Int64, lastError: String? = nil,
        finishedAtMs: Int64? = nil
    ) {
        self.seq = seq
        self.eventId = eventId
        self.endpoint = endpoint
        self.type = type
        self.subject = subject
        self.body = body
        self.createdAtMs = createdAtMs
        self.state = state
        self.attempts = attempts
        self.dueAtMs = dueAtMs
        self.lastError = lastError
        self.finishedAtMs = finishedAtMs
    }
}
