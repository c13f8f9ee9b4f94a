import Foundation
import Testing

@testable import Records

/// The asynchronous intent writer: batching, flush, and visibility of queued intents to confirmation.
@Suite struct IntentWriterTests {
    @Test(arguments: StoreKind.kinds)
    func flushWritesEverythingInBatches(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let errors = Collector<RecordsError>()
        let writer = IntentWriter(store: test.store, batchSize: 100, flushIntervalMs: 60_000) { errors.append($0) }
        defer { writer.shutdown() }
        let before = test.store.committedTransactions
        let intents = (0..<250).map { _ in Sample.intent() }
        for intent in intents { writer.enqueue(intent) }
        writer.flush()
        #expect(writer.pendingCount == 0)
        for intent in intents { #expect(try test.store.intent(imageKey: intent.imageKey) == intent) }
        // Batches of at most 100, never 250 transactions: two full batches and the rest on flush; a full
        // batch taken while more was queued leaves that remainder due at once (a backlog over a batch is
        // committed without waiting), so each of the two full batches may add one transaction.
        let transactions = test.store.committedTransactions - before
        #expect((3...5).contains(transactions), "\(transactions) transactions for 250 intents in batches of 100")
        #expect(errors.values.isEmpty)
    }

    @Test func anIntentIsWrittenWithinTheFlushIntervalWithoutAFlush() throws {
        let store = InMemoryRecordStore()
        let writer = IntentWriter(store: store, batchSize: 100, flushIntervalMs: 20) { _ in }
        defer { writer.shutdown() }
        let intent = Sample.intent()
        writer.enqueue(intent)
        #expect(eventually(seconds: 2) { (try? store.intent(imageKey: intent.imageKey)) == intent })
        #expect(eventually(seconds: 2) { writer.pendingCount == 0 })
    }

    /// The confirm path asks the writer (queue, then store): an intent whose batch is still being written
    /// is found in the queue, never in neither place.
    @Test func aQueuedIntentIsVisibleUntilItsBatchCommits() throws {
        let gated = GatedStore(InMemoryRecordStore(), closed: true)
        let writer = IntentWriter(store: gated, batchSize: 100, flushIntervalMs: 0) { _ in }
        defer { writer.shutdown() }
        let intent = Sample.intent()
        writer.enqueue(intent)
        #expect(eventually { gated.waiting == 1 })  // the writer holds the batch, blocked in the store
        #expect(writer.pending(imageKey: intent.imageKey) == intent)
        #expect(try gated.intent(imageKey: intent.imageKey) == nil)
        #expect(try writer.intent(imageKey: intent.imageKey) == intent)
        #expect(writer.pendingCount == 1)

        // A re-issue while the first batch is in flight: the queue shows the newest.
        var reissued = intent
        reissued.expiresAtMs += 1
        writer.enqueue(reissued)
        #expect(writer.pending(imageKey: intent.imageKey) == reissued)

        gated.open()
        writer.flush()
        #expect(writer.pending(imageKey: intent.imageKey) == nil)
        #expect(writer.pendingCount == 0)
        #expect(try gated.intent(imageKey: intent.imageKey) == reissued)
        #expect(try writer.intent(imageKey: intent.imageKey) == reissued)
    }

    /// Issue, then confirm at once, 500 times, while the writer writes small batches to a real database.
    @Test(arguments: StoreKind.databases)
    func confirmingRightAfterIssuingAlwaysFindsTheIntent(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let writer = IntentWriter(store: test.store, batchSize: 8, flushIntervalMs: 1) { _ in }
        defer { writer.shutdown() }
        var missing = 0
        for _ in 0..<500 {
            let intent = Sample.intent()
            writer.enqueue(intent)
            let seen = try writer.intent(imageKey: intent.imageKey)
            if seen != intent { missing += 1 }
        }
        #expect(missing == 0)
        writer.flush()
        #expect(writer.pendingCount == 0)
    }

    @Test func aBadIntentIsDroppedAloneAndReported() throws {
        let store = InMemoryRecordStore()
        let errors = Collector<RecordsError>()
        let writer = IntentWriter(store: store, batchSize: 10, flushIntervalMs: 60_000) { errors.append($0) }
        defer { writer.shutdown() }
        let good = [Sample.intent(), Sample.intent()]
        let bad = Sample.intent(allowed: ["image/png\n"])
        writer.enqueue(good[0])
        writer.enqueue(bad)
        writer.enqueue(good[1])
        writer.flush()
        #expect(try store.intent(imageKey: good[0].imageKey) == good[0])
        #expect(try store.intent(imageKey: good[1].imageKey) == good[1])
        #expect(try store.intent(imageKey: bad.imageKey) == nil)
        #expect(errors.values.count == 1)
        guard case .constraint = errors.values.first else {
            Issue.record("expected one constraint error, got \(errors.values)")
            return
        }
        #expect(writer.pending(imageKey: bad.imageKey) == nil)
    }

    @Test func anOutageIsRetriedUntilTheStoreIsBackAndReportedOnce() throws {
        let gated = GatedStore(InMemoryRecordStore())
        gated.fail(with: .unavailable("connection refused"), times: 6)
        let errors = Collector<RecordsError>()
        let writer = IntentWriter(store: gated, batchSize: 10, flushIntervalMs: 60_000, maxRetryDelayMs: 40) {
            errors.append($0)
        }
        defer { writer.shutdown() }
        let intent = Sample.intent()
        #expect(writer.enqueue(intent))
        writer.flush()
        // Six refusals, then the seventh attempt is written: an outage never drops a batch.
        #expect(gated.batches == [1, 1, 1, 1, 1, 1, 1])
        #expect(try gated.intent(imageKey: intent.imageKey) == intent)
        #expect(errors.values == [.unavailable("connection refused")], "one report per outage, not per retry")
        #expect(writer.pendingCount == 0)
    }

    @Test func aTimedFlushGivesUpDuringAnOutageAndSucceedsOnceTheStoreIsBack() throws {
        let gated = GatedStore(InMemoryRecordStore())
        gated.fail(with: .unavailable("connection refused"))
        // A minute's flush interval: only a flush makes the writer write now.
        let writer = IntentWriter(store: gated, batchSize: 10, flushIntervalMs: 60_000, maxRetryDelayMs: 20) { _ in }
        defer { writer.shutdown() }
        #expect(writer.flush(timeoutMs: 0), "nothing queued: flushed at once")
        let intent = Sample.intent()
        #expect(writer.enqueue(intent))
        #expect(!writer.flush(timeoutMs: 50), "the store refuses: the flush gives up")
        #expect(writer.pending(imageKey: intent.imageKey) == intent, "and the intent still waits")
        gated.fail(with: nil)
        #expect(writer.flush(timeoutMs: 60_000), "the store is back: written")
        #expect(try gated.intent(imageKey: intent.imageKey) == intent)
        #expect(writer.pending(imageKey: intent.imageKey) == nil)
    }

    @Test func duringAnOutageIntentsQueueUntilFullThenEnqueueRefuses() throws {
        let gated = GatedStore(InMemoryRecordStore())
        gated.fail(with: .unavailable("connection refused"))
        let errors = Collector<RecordsError>()
        let writer = IntentWriter(
            store: gated, batchSize: 2, flushIntervalMs: 0, maxPending: 4, maxRetryDelayMs: 20
        ) { errors.append($0) }
        defer { writer.shutdown() }
        let intents = (0..<6).map { _ in Sample.intent() }
        let accepted = intents.map { writer.enqueue($0) }
        #expect(accepted == [true, true, true, true, false, false])
        #expect(writer.isFull)
        // Every accepted intent is still findable while the database is down.
        for intent in intents.prefix(4) { #expect(writer.pending(imageKey: intent.imageKey) == intent) }
        gated.fail(with: nil)
        writer.flush()
        for intent in intents.prefix(4) { #expect(try gated.intent(imageKey: intent.imageKey) == intent) }
        #expect(!writer.isFull)
        #expect(writer.enqueue(Sample.intent()), "accepting again once the backlog is written")
    }

    @Test func aShutdownDuringAPermanentOutageGivesUpAndReportsTheDrop() throws {
        let gated = GatedStore(InMemoryRecordStore())
        gated.fail(with: .unavailable("connection refused"))
        let errors = Collector<RecordsError>()
        let writer = IntentWriter(
            store: gated, batchSize: 10, flushIntervalMs: 0, maxRetryDelayMs: 20, shutdownRetryMs: 100
        ) { errors.append($0) }
        #expect(writer.enqueue(Sample.intent()))
        writer.shutdown()  // returns: the give-up clock starts with the shutdown
        #expect(gated.batches.count >= 2, "retried at least once")
        #expect(errors.values.first == .unavailable("connection refused"))
        #expect(errors.values.last == .unavailable("shutting down during a database outage: 1 intents dropped"))
    }

    @Test func aFullQueueDropsAndReportsOnce() throws {
        let gated = GatedStore(InMemoryRecordStore(), closed: true)
        let errors = Collector<RecordsError>()
        let writer = IntentWriter(store: gated, batchSize: 2, flushIntervalMs: 0, maxPending: 4) { errors.append($0) }
        defer { writer.shutdown() }
        let intents = (0..<10).map { _ in Sample.intent() }
        for intent in intents { writer.enqueue(intent) }
        #expect(writer.pendingCount == 4)
        #expect(writer.droppedCount == 6)
        #expect(errors.values == [.unavailable("4 intents are waiting for the database; 1 dropped so far")])
        #expect(writer.pending(imageKey: intents[3].imageKey) == intents[3])
        #expect(writer.pending(imageKey: intents[4].imageKey) == nil)
        gated.open()
        writer.flush()
        #expect(try gated.intent(imageKey: intents[3].imageKey) == intents[3])
        #expect(try gated.intent(imageKey: intents[4].imageKey) == nil)
    }

    @Test func shutdownWritesWhatIsQueuedThenRefuses() throws {
        let store = InMemoryRecordStore()
        let errors = Collector<RecordsError>()
        let writer = IntentWriter(store: store, batchSize: 1_000, flushIntervalMs: 60_000) { errors.append($0) }
        let intents = (0..<10).map { _ in Sample.intent() }
        for intent in intents { writer.enqueue(intent) }
        writer.shutdown()
        for intent in intents { #expect(try store.intent(imageKey: intent.imageKey) == intent) }
        #expect(errors.values.isEmpty)
        let late = Sample.intent()
        writer.enqueue(late)
        writer.flush()
        writer.shutdown()
        #expect(try store.intent(imageKey: late.imageKey) == nil)
        #expect(errors.values.count == 1)
    }
}
