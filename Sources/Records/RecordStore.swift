/// Where intents and records live: one interface, implemented by SQLite, PostgreSQL and an in-memory store,
/// all held to one conformance suite.
///
/// Every call blocks: make them from worker threads, never from an event loop. Writes are durable when a
/// call returns (SQLite WAL with `synchronous=FULL`, PostgreSQL with `synchronous_commit=on`).
public protocol RecordStore: Sendable {
    /// Creates or upgrades the schema (tables `schema_version`, `intents`, `records`); safe to call on every
    /// start and from several processes at once.
    func migrate() throws(RecordsError)

    /// Checks that the database answers (for `/readyz`).
    func ping() throws(RecordsError)

    /// Writes intents in one transaction, upserting by `imageKey`: a re-issued key replaces an unconfirmed
    /// intent; the intent of a key that already has a record is left as it is. When one batch holds the
    /// same key twice, the later one wins.
    func putIntents(_ intents: [UploadIntent]) throws(RecordsError)

    /// How many `putIntents` transactions the intent writer keeps in flight at once (its lanes, each
    /// with its own keys: `IntentWriter`). 1 unless the store commits faster with several at once.
    var intentWriteLanes: Int { get }

    /// The intent stored for `imageKey`, or nil.
    func intent(imageKey: String) throws(RecordsError) -> UploadIntent?

    /// Inserts records in ONE durable transaction; `imageKey` is unique. A record whose key is already
    /// stored (or appears earlier in the same batch) gets `.existing` with the stored record, unless the
    /// stored record has its id: then it is this insert, landed by an earlier attempt whose answer was
    /// lost (a retry after a broken connection), and it gets `.inserted`. The outcomes are in the order
    /// of `records`. A constraint error (e.g. a duplicate id under another key) fails the whole call.
    func insertRecords(_ records: [ImageRecord]) throws(RecordsError) -> [InsertOutcome]

    /// The record with `id` if it belongs to `ownerId`, else nil.
    func record(id: String, ownerId: String) throws(RecordsError) -> ImageRecord?

    /// Those of the records with `ids` (distinct) that belong to `ownerId`, in any order: an id with no
    /// record, or another owner's, is left out. At most `RecordStoreLimits.maxIdsPerRead` ids.
    func records(ids: [String], ownerId: String) throws(RecordsError) -> [ImageRecord]

    /// The record confirmed with `imageKey` (whoever owns it), or nil.
    func record(imageKey: String) throws(RecordsError) -> ImageRecord?

    /// One page of `ownerId`'s records, newest first (createdAtMs desc, id desc), optionally of one `type`,
    /// starting strictly after `after`. `limit` must be in `1...RecordStoreLimits.maxListLimit`; `next` is
    /// nil when no record follows the page.
    func listRecords(ownerId: String, type: String?, limit: Int, after: RecordCursor?) throws(RecordsError)
        -> (records: [ImageRecord], next: RecordCursor?)

    /// Deletes the record with `id` if it belongs to `ownerId`; returns what was deleted, or nil. The outbox
    /// events `events` makes of the deleted record are written in the same transaction (none when nothing
    /// was deleted).
    func deleteRecord(id: String, ownerId: String, events: (ImageRecord) -> [OutboxEvent]) throws(RecordsError)
        -> ImageRecord?

    /// Up to `limit` intents that expired (`expiresAtMs <= nowMs`) and were never confirmed (no record has
    /// their `imageKey`), soonest-expired first.
    func expiredIntents(nowMs: Int64, limit: Int) throws(RecordsError) -> [UploadIntent]

    /// Deletes the intents with these keys (absent keys are ignored), in one transaction.
    func deleteIntents(imageKeys: [String]) throws(RecordsError)

    /// Makes `record` the current record of the owner's `slot`, in ONE durable transaction: inserts it
    /// unless its image key is already recorded (an existing record of the same owner is used as it is),
    /// points the slot at it, and, when `deletePrevious` is set, deletes the record the slot pointed at
    /// before and adds that record's object key to the pending object deletions (`nowMs` is when). The
    /// object itself is the caller's to delete from storage, after this returns: a crash in between
    /// leaves the key in `pendingObjectDeletions`, never a record pointing at a deleted object. A record
    /// inserted here takes its object key out of the pending deletions (its object is live again). When the
    /// slot is filled, the outbox events `events` makes of what changed are written in the same transaction.
    func fillSlot(
        _ record: ImageRecord, slot: String, deletePrevious: Bool, nowMs: Int64, events: (SlotFill) -> [OutboxEvent]
    ) throws(RecordsError) -> SlotOutcome

    /// The record the owner's `slot` points at, or nil (also when its record was deleted since).
    func slotRecord(ownerId: String, slot: String) throws(RecordsError) -> ImageRecord?

    /// Up to `limit` object keys queued by `fillSlot` whose objects may still be in storage, oldest first.
    func pendingObjectDeletions(limit: Int) throws(RecordsError) -> [String]

    /// Removes these keys from the pending object deletions (their objects are gone from storage).
    func finishObjectDeletions(_ objectKeys: [String]) throws(RecordsError)

    /// How many write transactions this store object has committed (intents, records, deletes): lets
    /// tests and benchmarks see that group commit really groups.
    var committedTransactions: Int { get }
}

extension RecordStore {
    /// One transaction at a time: the store serializes its writes (SQLite), or is in memory.
    public var intentWriteLanes: Int { 1 }

    /// `deleteRecord(id:ownerId:events:)` writing no outbox event.
    public func deleteRecord(id: String, ownerId: String) throws(RecordsError) -> ImageRecord? {
        try deleteRecord(id: id, ownerId: ownerId, events: { _ in [] })
    }

    /// `fillSlot(_:slot:deletePrevious:nowMs:events:)` writing no outbox event.
    public func fillSlot(_ record: ImageRecord, slot: String, deletePrevious: Bool, nowMs: Int64)
        throws(RecordsError) -> SlotOutcome
    {
        try fillSlot(record, slot: slot, deletePrevious: deletePrevious, nowMs: nowMs, events: { _ in [] })
    }
}
