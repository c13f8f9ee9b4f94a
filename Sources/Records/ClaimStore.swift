/// Fenced claims on intents (schema version 7): only one of several claimants (confirmation, the intent
/// janitor, the event path, the reconciler) settles an intent, and the others read how it was settled.
///
/// Every call blocks and is one transaction. docs/records.md ("Claims") has the protocol.
public protocol ClaimStore: Sendable {
    /// Claims `request.imageKey`: a record of the key is `.recorded`; a settled claim of the same intent
    /// generation `.finished`; a live claim of another token `.held`; otherwise (no claim, the caller's own
    /// token, a claim whose lease ran out, or a settled claim of an older generation) the claim becomes the
    /// caller's, `.won`. Durable before it returns on PostgreSQL; on SQLite it survives a crash of the
    /// process (it is committed like an intent batch, without its own fsync).
    func claimIntent(_ request: ClaimRequest) throws(RecordsError) -> ClaimOutcome

    /// Extends the caller's claim to `nowMs + leaseMs`; false when `token` no longer holds it.
    func renewClaim(imageKey: String, token: String, nowMs: Int64, leaseMs: Int64) throws(RecordsError) -> Bool

    /// Gives the claim up without settling the intent (nothing was moved, or the step failed): the row is
    /// removed, so any claimant may claim again. False when `token` no longer holds it.
    func releaseClaim(imageKey: String, token: String) throws(RecordsError) -> Bool

    /// Settles claims with records, in ONE durable transaction: for each, when its token still holds the
    /// claim of its key, the record is inserted (or found, as `insertRecords` does) and the claim marked
    /// `recorded`, and its outbox events written (`ClaimedRecord.events`: when it is `.recorded`); else
    /// nothing is written for it (`.fenced`). Outcomes in the order of `claimed`.
    func recordClaimed(_ claimed: [ClaimedRecord], nowMs: Int64) throws(RecordsError) -> [ClaimFinish]

    /// Settles a claim as `expired` (the janitor deleted the intent's objects); the intent itself is the
    /// caller's to delete next (`deleteIntents`); `events` are written in the same transaction when it is
    /// settled. False (nothing written) when `token` no longer holds the claim.
    func expireClaim(imageKey: String, token: String, reason: String, nowMs: Int64, events: [OutboxEvent])
        throws(RecordsError) -> Bool

    /// The claim of `imageKey`, or nil.
    func claim(imageKey: String) throws(RecordsError) -> IntentClaim?

    /// Removes up to `limit` settled claims last changed before `beforeMs` (their answers are no longer
    /// needed: a confirmation of a pruned expired key gets 404 instead of 410); how many.
    func pruneClaims(settledBeforeMs beforeMs: Int64, limit: Int) throws(RecordsError) -> Int
}

extension ClaimStore {
    /// `recordClaimed` of records that report no outbox event.
    public func recordClaimed(_ claimed: [(record: ImageRecord, token: String)], nowMs: Int64) throws(RecordsError)
        -> [ClaimFinish]
    {
        try recordClaimed(claimed.map { ClaimedRecord(record: $0.record, token: $0.token) }, nowMs: nowMs)
    }

    /// `expireClaim` writing no outbox event.
    public func expireClaim(imageKey: String, token: String, reason: String, nowMs: Int64) throws(RecordsError)
        -> Bool
    {
        try expireClaim(imageKey: imageKey, token: token, reason: reason, nowMs: nowMs, events: [])
    }
}
