/// A record that settles a claim (`ClaimStore.recordClaimed`), with the outbox events its insert reports.
public struct ClaimedRecord: Sendable, Equatable {
    /// The record.
    public var record: ImageRecord
    /// The fence token of the claim it settles.
    public var token: String
    /// Written in the same transaction when the record is recorded by this call (or found there under its
    /// own id: an earlier attempt of this very insert, whose events went in with it and are not written
    /// twice); nothing when it is fenced off or the key holds another record.
    public var events: [OutboxEvent]

    /// A claimed record.
    public init(record: ImageRecord, token: String, events: [OutboxEvent] = []) {
        self.record = record
        self.token = token
        self.events = events
    }
}
