import Records
import Synchronization

/// A store that keeps everything in memory, for unit tests of code built on `RecordStore`.
///
/// It follows the same contract as the database stores and passes the same conformance suite; nothing
/// survives the object.
public final class InMemoryRecordStore: RecordStore {
    /// Everything the store holds, guarded by one mutex.
    struct State {
        /// Intents by image key.
        var intents: [String: UploadIntent] = [:]
        /// Records by id.
        var records: [String: ImageRecord] = [:]
        /// Record ids by image key.
        var idByImageKey: [String: String] = [:]
        /// Record ids by owner and slot.
        var slots: [SlotKey: String] = [:]
        /// Pending object deletions with the time they were queued.
        var deletions: [String: Int64] = [:]
        /// Claims by image key (schema version 7).
        var claims: [String: IntentClaim] = [:]
        /// Inbox entries by id, with their due time and lease token.
        var events: [Int64: (event: InboxEvent, dueAtMs: Int64, token: String?, finishedAtMs: Int64?)] = [:]
        /// The last inbox id given.
        var lastEventId: Int64 = 0
        /// Multipart uploads by object key and upload id.
        var uploads: [UploadKey: MultipartUploadEntry] = [:]
        /// Native uploads by upload id (schema version 14).
        var nativeUploads: [String: NativeUploadEntry] = [:]
        /// Keys noted before CreateMultipartUpload, by key (schema version 14).
        var creations: [String: NotedCreation] = [:]
        /// Leases by name (schema version 8).
        var leases: [String: Lease] = [:]
        /// Shared rate buckets by key: tokens, last charge, rate and capacity.
        var buckets: [String: (tokens: Double, updatedAtMs: Int64, perMinute: Int64, burst: Int64)] = [:]
        /// Instances of the shared rate limits by id, with when each was last seen.
        var instances: [String: Int64] = [:]
        /// Quota usage by owner and day.
        var quotaUsage: [QuotaDay: QuotaUsage] = [:]
        /// Quota reservations by image key: owner, day, bytes.
        var reservations: [String: (ownerId: String, dayStartMs: Int64, bytes: Int64)] = [:]
        /// The scan bookkeeping of `scanning` records by id (schema version 13).
        var scans: [String: ScanBook] = [:]
        /// Webhook deliveries by seq (schema version 12).
        var outbox: [Int64: WebhookDelivery] = [:]
        /// The seq of each (event id, endpoint).
        var outboxKeys: [OutboxKey: Int64] = [:]
        /// The last seq given.
        var lastSeq: Int64 = 0
    }

    /// One event's delivery to one endpoint.
    struct OutboxKey: Hashable {
        let eventId: String
        let endpoint: String
    }

    /// A multipart upload's identity.
    struct UploadKey: Hashable {
        let objectKey: String
        let uploadId: String
    }

    /// An owner's UTC day of quota.
    struct QuotaDay: Hashable {
        let ownerId: String
        let dayStartMs: Int64
    }

    /// An owner's slot.
    struct SlotKey: Hashable {
        let ownerId: String
        let slot: String
    }

    /// The data.
    let state = Mutex(State())
    /// Write transactions committed.
    let commits = Atomic<Int>(0)

    /// An empty store.
    public init() {}

    /// Nothing to create.
    public func migrate() throws(RecordsError) {}

    /// Always answers.
    public func ping() throws(RecordsError) {}

    /// Write transactions committed so far.
    public var committedTransactions: Int { commits.load(ordering: .relaxed) }

    /// Upserts intents; a key that already has a record keeps its intent.
    public func putIntents(_ intents: [UploadIntent]) throws(RecordsError) {
        for intent in intents { _ = try AllowedContentTypes.encode(intent.allowedContentTypes) }
        state.withLock { state in
            for intent in intents where state.idByImageKey[intent.imageKey] == nil {
                state.intents[intent.imageKey] = intent
            }
        }
        commits.add(1, ordering: .relaxed)
    }

    /// The intent for `imageKey`.
    public func intent(imageKey: String) throws(RecordsError) -> UploadIntent? {
        state.withLock { $0.intents[imageKey] }
    }

    /// Inserts all records or none (a duplicate id fails the call).
    public func insertRecords(_ records: [ImageRecord]) throws(RecordsError) -> [InsertOutcome] {
        let outcomes = try state.withLock { (state: inout State) throws(RecordsError) -> [InsertOutcome] in
            var next = state
            var outcomes: [InsertOutcome] = []
            outcomes.reserveCapacity(records.count)
            for record in records {
                if let id = next.idByImageKey[record.imageKey], let stored = next.records[id] {
                    outcomes.append(.alreadyStored(stored, inserting: record))
                    continue
                }
                guard next.records[record.id] == nil else {
                    throw .constraint("a record with id \(record.id) already exists")
                }
                next.records[record.id] = record
                next.idByImageKey[record.imageKey] = record.id
                outcomes.append(.inserted(record))
            }
            state = next
            return outcomes
        }
        commits.add(1, ordering: .relaxed)
        return outcomes
    }

    /// The owner's record with `id`.
    public func record(id: String, ownerId: String) throws(RecordsError) -> ImageRecord? {
        state.withLock { state in
            guard let record = state.records[id], record.ownerId == ownerId else { return nil }
            return record
        }
    }

    /// The record confirmed with `imageKey`.
    public func record(imageKey: String) throws(RecordsError) -> ImageRecord? {
        state.withLock { state in state.idByImageKey[imageKey].flatMap { state.records[$0] } }
    }

    /// One newest-first page of the owner's records.
    public func listRecords(ownerId: String, type: String?, limit: Int, after: RecordCursor?) throws(RecordsError)
        -> (records: [ImageRecord], next: RecordCursor?)
    {
        try RecordStoreLimits.checkListLimit(limit)
        let all = state.withLock { state in
            state.records.values.filter { $0.ownerId == ownerId && (type == nil || $0.type == type) }
        }
        let sorted = all.sorted { ($0.createdAtMs, $0.id) > ($1.createdAtMs, $1.id) }
        let tail = sorted.drop { record in
            guard let after else { return false }
            return (record.createdAtMs, record.id) >= (after.createdAtMs, after.id)
        }
        let page = Array(tail.prefix(limit))
        let next = tail.count > limit ? page.last.map(RecordCursor.init(after:)) : nil
        return (page, next)
    }

    /// Deletes the owner's record with `id`, with the outbox events `events` makes of it.
    public func deleteRecord(id: String, ownerId: String, events: (ImageRecord) -> [OutboxEvent])
        throws(RecordsError) -> ImageRecord?
    {
        let deleted = state.withLock { state -> ImageRecord? in
            guard let record = state.records[id], record.ownerId == ownerId else { return nil }
            state.records[id] = nil
            state.idByImageKey[record.imageKey] = nil
            Self.appendOutbox(events(record), &state)
            return record
        }
        commits.add(1, ordering: .relaxed)
        return deleted
    }

    /// Expired, unconfirmed intents, soonest-expired first.
    public func expiredIntents(nowMs: Int64, limit: Int) throws(RecordsError) -> [UploadIntent] {
        try RecordStoreLimits.checkBatchLimit(limit)
        let expired = state.withLock { state in
            state.intents.values.filter { $0.expiresAtMs <= nowMs && state.idByImageKey[$0.imageKey] == nil }
        }
        return Array(expired.sorted { ($0.expiresAtMs, $0.imageKey) < ($1.expiresAtMs, $1.imageKey) }.prefix(limit))
    }

    /// Deletes intents by key.
    public func deleteIntents(imageKeys: [String]) throws(RecordsError) {
        state.withLock { state in
            for key in imageKeys { state.intents[key] = nil }
        }
        commits.add(1, ordering: .relaxed)
    }

    /// `RecordStore.fillSlot` under the store's one lock.
    public func fillSlot(
        _ record: ImageRecord, slot: String, deletePrevious: Bool, nowMs: Int64, events: (SlotFill) -> [OutboxEvent]
    ) throws(RecordsError) -> SlotOutcome {
        let outcome = state.withLock { state -> SlotOutcome in
            let stored = state.idByImageKey[record.imageKey].flatMap { state.records[$0] }
            let current = state.slots[SlotKey(ownerId: record.ownerId, slot: slot)].flatMap { state.records[$0] }
            let storedSlot = stored.flatMap { s in state.slots.first { $0.value == s.id }?.key.slot }
            let found = SlotPlan.Found(stored: stored, current: current, storedSlot: storedSlot)
            switch SlotPlan.step(for: record, slot: slot, found: found, deletePrevious: deletePrevious) {
            case .answer(let outcome):
                return outcome
            case .fill(let target, let insert, let previous, let deleting):
                if insert {
                    state.records[target.id] = target
                    state.idByImageKey[target.imageKey] = target.id
                    state.deletions[target.objectKey] = nil
                }
                state.slots[SlotKey(ownerId: target.ownerId, slot: slot)] = target.id
                let outcome = SlotPlan.outcome(target: target, previous: previous, deletePrevious: deleting)
                if deleting, let previous {
                    state.records[previous.id] = nil
                    state.idByImageKey[previous.imageKey] = nil
                    if case .filled(_, _, let key?) = outcome, state.deletions[key] == nil {
                        state.deletions[key] = nowMs
                    }
                }
                Self.appendOutbox(
                    events(
                        SlotFill(
                            slot: slot, record: target, inserted: insert, previous: previous, previousDeleted: deleting)
                    ),
                    &state)
                return outcome
            }
        }
        commits.add(1, ordering: .relaxed)
        return outcome
    }

    /// The record the owner's slot points at.
    public func slotRecord(ownerId: String, slot: String) throws(RecordsError) -> ImageRecord? {
        state.withLock { state in
            state.slots[SlotKey(ownerId: ownerId, slot: slot)].flatMap { state.records[$0] }
        }
    }

    /// The oldest pending object deletions.
    public func pendingObjectDeletions(limit: Int) throws(RecordsError) -> [String] {
        try RecordStoreLimits.checkBatchLimit(limit)
        let all = state.withLock { $0.deletions }
        return Array(all.sorted { ($0.value, $0.key) < ($1.value, $1.key) }.prefix(limit).map(\.key))
    }

    /// Removes finished deletions.
    public func finishObjectDeletions(_ objectKeys: [String]) throws(RecordsError) {
        state.withLock { state in
            for key in objectKeys { state.deletions[key] = nil }
        }
        commits.add(1, ordering: .relaxed)
    }
}
