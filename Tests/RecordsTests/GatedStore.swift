import Foundation

@testable import Records

/// A store that forwards to another and lets a test hold writes at a gate, see the batches, and inject
/// failures.
final class GatedStore: RecordStore, @unchecked Sendable {
    /// The store written through.
    let inner: any RecordStore
    /// Guards the fields below and signals gate changes.
    private let lock = NSCondition()
    /// True while writes are held.
    private var closed = false
    /// Writes held right now.
    private var waitingAtGate = 0
    /// Sizes of every write batch seen.
    private var batchSizes: [Int] = []
    /// The error every write throws, if set.
    private var failure: RecordsError?
    /// How many more writes throw `failure` (nil: all of them).
    private var failuresLeft: Int?

    /// A gate in front of `inner`, closed from the start if `closed`.
    init(_ inner: any RecordStore, closed: Bool = false) {
        self.inner = inner
        self.closed = closed
    }

    /// Holds every following write at the gate until `open()`.
    func close() { lock.withLock { closed = true } }

    /// Lets held and later writes through.
    func open() {
        lock.withLock {
            closed = false
            lock.broadcast()
        }
    }

    /// Makes every following write fail with `error` (nil: stop failing).
    func fail(with error: RecordsError?) {
        lock.withLock {
            failure = error
            failuresLeft = nil
        }
    }

    /// Makes the next `times` writes fail with `error`, then lets writes through again.
    func fail(with error: RecordsError, times: Int) {
        lock.withLock {
            failure = error
            failuresLeft = times
        }
    }

    /// Writes waiting at the gate.
    var waiting: Int { lock.withLock { waitingAtGate } }

    /// The sizes of the write batches seen so far.
    var batches: [Int] { lock.withLock { batchSizes } }

    /// Records a batch of `count`, waits while the gate is closed, then throws the injected failure if any.
    private func gate(_ count: Int) throws(RecordsError) {
        let failure: RecordsError? = lock.withLock {
            batchSizes.append(count)
            waitingAtGate += 1
            lock.broadcast()
            while closed { lock.wait() }
            waitingAtGate -= 1
            guard let f = self.failure else { return nil }
            if let left = failuresLeft {
                failuresLeft = left - 1
                if left - 1 <= 0 { self.failure = nil }
            }
            return f
        }
        if let failure { throw failure }
    }

    /// Forwards to `inner`.
    func migrate() throws(RecordsError) { try inner.migrate() }
    /// Forwards to `inner`.
    func ping() throws(RecordsError) { try inner.ping() }
    /// Forwards to `inner`.
    func putIntents(_ intents: [UploadIntent]) throws(RecordsError) {
        try gate(intents.count)
        try inner.putIntents(intents)
    }
    /// Forwards to `inner`.
    func intent(imageKey: String) throws(RecordsError) -> UploadIntent? { try inner.intent(imageKey: imageKey) }
    /// Forwards to `inner`.
    func insertRecords(_ records: [ImageRecord]) throws(RecordsError) -> [InsertOutcome] {
        try gate(records.count)
        return try inner.insertRecords(records)
    }
    /// Forwards to `inner`.
    func record(id: String, ownerId: String) throws(RecordsError) -> ImageRecord? {
        try inner.record(id: id, ownerId: ownerId)
    }
    /// Forwards to `inner`.
    func record(imageKey: String) throws(RecordsError) -> ImageRecord? { try inner.record(imageKey: imageKey) }
    /// Forwards to `inner`.
    func listRecords(ownerId: String, type: String?, limit: Int, after: RecordCursor?) throws(RecordsError)
        -> (records: [ImageRecord], next: RecordCursor?)
    {
        try inner.listRecords(ownerId: ownerId, type: type, limit: limit, after: after)
    }
    /// Forwards to `inner`.
    func deleteRecord(id: String, ownerId: String, events: (ImageRecord) -> [OutboxEvent]) throws(RecordsError)
        -> ImageRecord?
    {
        try inner.deleteRecord(id: id, ownerId: ownerId, events: events)
    }
    /// Forwards to `inner`.
    func expiredIntents(nowMs: Int64, limit: Int) throws(RecordsError) -> [UploadIntent] {
        try inner.expiredIntents(nowMs: nowMs, limit: limit)
    }
    /// Forwards to `inner`.
    func deleteIntents(imageKeys: [String]) throws(RecordsError) { try inner.deleteIntents(imageKeys: imageKeys) }
    /// Forwards to `inner`.
    func fillSlot(
        _ record: ImageRecord, slot: String, deletePrevious: Bool, nowMs: Int64, events: (SlotFill) -> [OutboxEvent]
    ) throws(RecordsError) -> SlotOutcome {
        try inner.fillSlot(record, slot: slot, deletePrevious: deletePrevious, nowMs: nowMs, events: events)
    }
    /// Forwards to `inner`.
    func slotRecord(ownerId: String, slot: String) throws(RecordsError) -> ImageRecord? {
        try inner.slotRecord(ownerId: ownerId, slot: slot)
    }
    /// Forwards to `inner`.
    func pendingObjectDeletions(limit: Int) throws(RecordsError) -> [String] {
        try inner.pendingObjectDeletions(limit: limit)
    }
    /// Forwards to `inner`.
    func finishObjectDeletions(_ objectKeys: [String]) throws(RecordsError) {
        try inner.finishObjectDeletions(objectKeys)
    }
    /// Forwards to `inner`.
    var committedTransactions: Int { inner.committedTransactions }
}
