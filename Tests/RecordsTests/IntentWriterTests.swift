import Foundation
import RecordsTestSupport
import TestSupport
import Testing

@testable import Records

/// The intent writer under `submit`: everything submitted is stored and told, an outage is retried,
/// a full queue reports once, and a caller told `.stored` finds its intent in the store at once.
@Suite(.blocking) struct IntentWriterTests {
    @Test(arguments: StoreKind.kinds)
    func everythingSubmittedIsStoredAndTold(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let errors = Collector<RecordsError>()
        let writer = IntentWriter(store: test.store, batchSize: 100) { errors.append($0) }
        defer { writer.shutdown() }
        let before = test.store.committedTransactions
        let log = OutcomeLog()
        let intents = (0..<250).map { _ in Sample.intent() }
        for intent in intents { writer.submit(intent, completion: log.completion(for: intent.imageKey)) }
        #expect(log.wait(for: intents.count))
        #expect(writer.pendingCount == 0)
        for intent in intents {
            #expect(log.of(intent.imageKey) == [.stored])
            #expect(try test.store.intent(imageKey: intent.imageKey) == intent)
        }
        // At most one transaction per intent (fewer when submissions arrive during a commit).
        #expect(test.store.committedTransactions - before <= intents.count)
        #expect(errors.values.isEmpty)
    }

    /// Issue, then confirm as soon as the caller is told, 500 times, on a real database: the store has
    /// the intent on the first lookup, every time (what makes an answered URL confirmable anywhere).
    @Test(arguments: StoreKind.databases)
    func aCallerToldStoredAlwaysFindsTheIntent(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let writer = IntentWriter(store: test.store, batchSize: 8) { _ in }
        defer { writer.shutdown() }
        var missing = 0
        for _ in 0..<500 {
            let intent = Sample.intent()
            let log = OutcomeLog()
            writer.submit(intent, completion: log.completion(for: intent.imageKey))
            #expect(log.wait(for: 1))
            let found = try test.store.intent(imageKey: intent.imageKey)
            if log.of(intent.imageKey) != [.stored] || found != intent { missing += 1 }
        }
        #expect(missing == 0)
    }

    @Test func anOutageIsRetriedUntilTheStoreIsBackAndReportedOnce() throws {
        let gated = GatedStore(InMemoryRecordStore())
        gated.fail(with: .unavailable("connection refused"), times: 6)
        let errors = Collector<RecordsError>()
        let writer = IntentWriter(store: gated, batchSize: 10, maxWaitMs: 60_000, maxRetryDelayMs: 40) {
            errors.append($0)
        }
        defer { writer.shutdown() }
        let intent = Sample.intent()
        let log = OutcomeLog()
        writer.submit(intent, completion: log.completion(for: intent.imageKey))
        #expect(log.wait(for: 1))
        // Six refusals, then the seventh attempt is written: an outage shorter than the bound is waited out.
        #expect(log.of(intent.imageKey) == [.stored])
        #expect(gated.batches == [1, 1, 1, 1, 1, 1, 1])
        #expect(try gated.intent(imageKey: intent.imageKey) == intent)
        #expect(errors.values == [.unavailable("connection refused")], "one report per outage, not per retry")
        #expect(writer.pendingCount == 0)
    }

    @Test func aShutdownDuringAPermanentOutageGivesUpAndReportsTheDrop() throws {
        let gated = GatedStore(InMemoryRecordStore())
        gated.fail(with: .unavailable("connection refused"))
        let errors = Collector<RecordsError>()
        let writer = IntentWriter(
            store: gated, batchSize: 10, maxWaitMs: 60_000, maxRetryDelayMs: 20, shutdownRetryMs: 100
        ) { errors.append($0) }
        let log = OutcomeLog()
        let intent = Sample.intent()
        writer.submit(intent, completion: log.completion(for: intent.imageKey))
        #expect(eventuallyBlocking(within: 5) { gated.batches.count >= 1 })
        writer.shutdown()  // returns: the give-up clock starts with the shutdown
        #expect(gated.batches.count >= 2, "retried at least once")
        #expect(log.count == 1)
        #expect(log.of(intent.imageKey).first?.isStored == false, "never told stored")
        #expect(errors.values.first == .unavailable("connection refused"))
        #expect(errors.values.last == .unavailable("shutting down during a database outage: 1 intents dropped"))
    }

    @Test func aFullQueueRefusesAndReportsOnce() throws {
        let gated = GatedStore(InMemoryRecordStore(), closed: true)
        let errors = Collector<RecordsError>()
        let writer = IntentWriter(store: gated, batchSize: 2, maxPending: 4, maxWaitMs: 60_000) { errors.append($0) }
        defer { writer.shutdown() }
        let log = OutcomeLog()
        let intents = (0..<10).map { _ in Sample.intent() }
        for intent in intents { writer.submit(intent, completion: log.completion(for: intent.imageKey)) }
        #expect(writer.pendingCount == 4)
        #expect(writer.droppedCount == 6)
        #expect(log.count == 6, "the refused are told at once")
        #expect(errors.values == [.unavailable("4 intents are waiting for the database; 1 dropped so far")])
        gated.open()
        #expect(log.wait(for: 10))
        for intent in intents.prefix(4) {
            #expect(log.of(intent.imageKey) == [.stored])
            #expect(try gated.intent(imageKey: intent.imageKey) == intent)
        }
        for intent in intents.suffix(6) { #expect(try gated.intent(imageKey: intent.imageKey) == nil) }
    }
}
