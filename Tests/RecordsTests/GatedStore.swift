import Foundation

@testable import Records

/// A store that forwards to another and lets a test hold writes at a gate, see the batches, and inject
/// failures.
final class GatedStore: RecordStore, @unchecked Sendable {
    let inner: any RecordStore
    private let lock = NSCondition()
    private var closed = false
    private var waitingAtGate = 0
    private var batchSizes: [Int] = []
    private var failure: RecordsError?

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
    func fail(with error: RecordsError?) { lock.withLock { failure = error } }

    /// Writes waiting at the gate.
    var waiting: Int { lock.withLock { waitingAtGate } }

    /// The sizes of the write batches seen so far.
    var batches: [Int] { lock.withLock { batchSizes } }

    private func gate(_ count: Int) throws(RecordsError) {
        let failure: RecordsError? = lock.withLock {
            batchSizes.append(count)
            waitingAtGate += 1
            lock.broadcast()
            while closed { lock.wait() }
            waitingAtGate -= 1
            return self.failure
        }
        if let failure { throw failure }
    }

    func migrate() throws(RecordsError) { try inner.migrate() }
    func ping() throws(RecordsError) { try inner.ping() }
    func putIntents(_ intents: [UploadIntent]) throws(RecordsError) {
        try gate(intents.count)
        try inner.putIntents(intents)
    }
    func intent(imageKey: String) throws(RecordsError) -> UploadIntent? { try inner.intent(imageKey: imageKey) }
    func insertRecords(_ records: [ImageRecord]) throws(RecordsError) -> [InsertOutcome] {
        try gate(records.count)
        return try inner.insertRecords(records)
    }
    func record(id: String, ownerId: String) throws(RecordsError) -> ImageRecord? {
        try inner.record(id: id, ownerId: ownerId)
    }
    func record(imageKey: String) throws(RecordsError) -> ImageRecord? { try inner.record(imageKey: imageKey) }
    func listRecords(ownerId: String, type: String?, limit: Int, after: RecordCursor?) throws(RecordsError)
        -> (records: [ImageRecord], next: RecordCursor?)
    {
        try inner.listRecords(ownerId: ownerId, type: type, limit: limit, after: after)
    }
    func deleteRecord(id: String, ownerId: String) throws(RecordsError) -> ImageRecord? {
        try inner.deleteRecord(id: id, ownerId: ownerId)
    }
    func expiredIntents(nowMs: Int64, limit: Int) throws(RecordsError) -> [UploadIntent] {
        try inner.expiredIntents(nowMs: nowMs, limit: limit)
    }
    func deleteIntents(imageKeys: [String]) throws(RecordsError) { try inner.deleteIntents(imageKeys: imageKeys) }
    var committedTransactions: Int { inner.committedTransactions }
}
