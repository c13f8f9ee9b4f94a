/// One authenticated store event in the inbox (schema version 7), as `EventInbox.takeEvents` hands it out.
public struct InboxEvent: Sendable, Equatable {
    /// Where an entry stands.
    public enum State: String, Sendable, Equatable {
        /// Waiting to be processed (or being processed, until its lease runs out).
        case pending
        /// Processed: its records were made (or were already there).
        case done
        /// Processed and refused for good (`reason`): an unknown key, a malformed record.
        case rejected
    }

    /// The entry's id, increasing in insertion order.
    public var id: Int64
    /// Which door it came through (`rgw`, `minio`, `sns`).
    public var source: String
    /// The request body as received, byte for byte.
    public var body: [UInt8]
    /// When it was received.
    public var receivedAtMs: Int64
    /// How many times it has been taken, this time included.
    public var attempts: Int
    /// Where it stands.
    public var state: State
    /// Why it was rejected, or why its last attempt failed.
    public var reason: String?

    /// An entry from its fields.
    public init(
        id: Int64, source: String, body: [UInt8], receivedAtMs: Int64, attempts: Int, state: State,
        reason: String? = nil
    ) {
        self.id = id
        self.source = source
        self.body = body
        self.receivedAtMs = receivedAtMs
        self.attempts = attempts
        self.state = state
        self.reason = reason
    }
}
