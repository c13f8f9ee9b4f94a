/// The durable inbox of authenticated store events (schema version 7): the events endpoint inserts an
/// event (one durable commit) before its 2xx; processors take due entries under a lease, then mark them
/// done, rejected, or due again later. Duplicates (RGW and SNS deliver again) are kept as they come: they
/// collapse to one record through the claims.
public protocol EventInbox: Sendable {
    /// Inserts one event, durable when this returns; its id. A body over `limits.maxBodyBytes` is
    /// `.invalidArgument`, an inbox holding `limits.maxPending` pending entries `.unavailable`.
    func enqueueEvent(source: String, body: [UInt8], receivedAtMs: Int64, limits: InboxLimits)
        throws(RecordsError) -> Int64

    /// Takes up to `limit` pending entries due at `nowMs` (oldest due first) under `token` for `leaseMs`:
    /// each one's attempts grow by one, and it is not handed out again before the lease runs out (a
    /// processor that crashed leaves it due again then). On PostgreSQL, instances take disjoint entries.
    func takeEvents(nowMs: Int64, limit: Int, leaseMs: Int64, token: String) throws(RecordsError) -> [InboxEvent]

    /// Finishes entry `id` taken under `token`: done, rejected, or due again at a later time. False when
    /// the entry is not pending under that token any more (its lease ran out and another took it).
    func finishEvent(id: Int64, token: String, outcome: InboxOutcome, nowMs: Int64) throws(RecordsError) -> Bool

    /// The inbox's counts and its oldest pending entry.
    func inboxStats() throws(RecordsError) -> InboxStats

    /// Removes up to `limit` done or rejected entries finished before `beforeMs`; how many.
    func pruneEvents(finishedBeforeMs beforeMs: Int64, limit: Int) throws(RecordsError) -> Int
}
