/// Leases for background work (schema version 8): a row per kind of work, so that across instances (and
/// processes on one SQLite file) one holder at a time runs it, and every write it makes is fenced by the
/// lease's token. Nothing here is a session lock: each call is one transaction, so it works through a
/// transaction-mode pooler (PgBouncer). docs/records.md ("Leases") has the protocol.
public protocol LeaseStore: Sendable {
    /// Takes `name` for `holder` until `nowMs + ttlMs` (`LeasePlan.step`): a first lease, the holder's own
    /// extended, a run-out one taken over under the next token, or `.held` by another holder.
    func acquireLease(name: String, holder: String, nowMs: Int64, ttlMs: Int64) throws(RecordsError) -> LeaseOutcome

    /// Extends `lease` to `nowMs + ttlMs` while it still holds (same token, not run out); nil when it was
    /// lost: the work must stop.
    func renewLease(_ lease: Lease, nowMs: Int64, ttlMs: Int64) throws(RecordsError) -> Lease?

    /// Gives `lease` up (its row runs out now, keeping its token, so the next holder's is greater);
    /// false when it no longer held.
    func releaseLease(_ lease: Lease, nowMs: Int64) throws(RecordsError) -> Bool

    /// The lease row of `name`, or nil.
    func lease(name: String) throws(RecordsError) -> Lease?

    /// Runs `body`'s writes in ONE transaction that first checks that `lease` still holds at `nowMs`
    /// (its row has the same token and has not run out) and keeps a takeover out until it commits
    /// (PostgreSQL: the row is locked `FOR SHARE`; SQLite: the write lock of `BEGIN IMMEDIATE`). When it
    /// does not hold, nothing is written and the answer is `.lost` with the row as stored.
    func fenced<Value: Sendable>(
        by lease: Lease, nowMs: Int64, _ body: (any FencedWrites) throws(RecordsError) -> Value
    ) throws(RecordsError) -> LeaseFenced<Value>
}

/// The writes background work makes, inside a transaction fenced by its lease (`LeaseStore.fenced`).
public protocol FencedWrites {
    /// `RecordStore.deleteIntents`, inside the fenced transaction.
    func deleteIntents(imageKeys: [String]) throws(RecordsError)
    /// `RecordStore.finishObjectDeletions`, inside the fenced transaction.
    func finishObjectDeletions(_ objectKeys: [String]) throws(RecordsError)
    /// `QuotaStore.releaseQuotas`, inside the fenced transaction: how many reservations were held (a
    /// batch's releases and its intents' deletes in one fenced transaction never leave one without the
    /// other).
    func releaseQuotas(imageKeys: [String]) throws(RecordsError) -> Int
    /// `MultipartLedger.removeMultipartUploads`, inside the fenced transaction.
    func removeMultipartUploads(_ uploads: [(objectKey: String, uploadId: String)]) throws(RecordsError)
    /// `WebhookOutbox.settleWebhookDelivery`, inside the fenced transaction.
    func settleWebhookDelivery(seq: Int64, attempt: WebhookAttempt, nowMs: Int64) throws(RecordsError) -> Bool
    /// `ScanQueue.settleScan`, inside the fenced transaction (with its outbox events).
    func settleScan(id: String, _ settlement: ScanSettlement, events: (ImageRecord) -> [OutboxEvent])
        throws(RecordsError) -> ImageRecord?
}
