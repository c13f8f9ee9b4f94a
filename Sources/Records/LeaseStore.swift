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
    /// does not hold, nothing is written and the answer is `.lost` with the row as stored. `durable`
    /// false commits without waiting for the disk (SQLite `synchronous=NORMAL`, PostgreSQL
    /// `synchronous_commit=off` for the transaction): for writes whose loss to a power cut only repeats
    /// work, such as a webhook round's settlements (an event sent again under the same id).
    func fenced<Value: Sendable>(
        by lease: Lease, nowMs: Int64, durable: Bool, _ body: (any FencedWrites) throws(RecordsError) -> Value
    ) throws(RecordsError) -> LeaseFenced<Value>
}

extension LeaseStore {
    /// `fenced(by:nowMs:durable:_:)`, durable.
    public func fenced<Value: Sendable>(
        by lease: Lease, nowMs: Int64, _ body: (any FencedWrites) throws(RecordsError) -> Value
    ) throws(RecordsError) -> LeaseFenced<Value> {
        try fenced(by: lease, nowMs: nowMs, durable: true, body)
    }
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
    /// Marks the pending deliveries `seqs` delivered at `nowMs`, inside the fenced transaction; how many
    /// were pending (a round's successes in one statement where the store allows it).
    func settleDelivered(seqs: [Int64], nowMs: Int64) throws(RecordsError) -> Int
    /// `ScanQueue.settleScan`, inside the fenced transaction (with its outbox events).
    func settleScan(id: String, _ settlement: ScanSettlement, events: (ImageRecord) -> [OutboxEvent])
        throws(RecordsError) -> ImageRecord?
}

extension FencedWrites {
    /// `settleDelivered` one delivery at a time.
    public func settleDelivered(seqs: [Int64], nowMs: Int64) throws(RecordsError) -> Int {
        var settled = 0
        for seq in seqs where try settleWebhookDelivery(seq: seq, attempt: .delivered, nowMs: nowMs) { settled += 1 }
        return settled
    }
}
