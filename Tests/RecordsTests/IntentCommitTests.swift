import Foundation
import RecordsTestSupport
import Synchronization
import TestSupport
import Testing

@testable import Records

/// Outcomes of `IntentWriter.submit`, in the order they arrive, with when each arrived.
final class OutcomeLog: @unchecked Sendable {
    /// Guards the fields below.
    private let lock = NSCondition()
    /// Outcomes by image key, each appended once per completion call.
    private var outcomes: [String: [IntentOutcome]] = [:]
    /// All completion calls so far.
    private var calls = 0

    /// The completion for `key`: records its outcome, after running `check` (inside the completion).
    func completion(for key: String, check: @escaping @Sendable (IntentOutcome) -> Void = { _ in })
        -> IntentWriter.Completion
    {
        { outcome in
            check(outcome)
            self.lock.withLock {
                self.outcomes[key, default: []].append(outcome)
                self.calls += 1
                self.lock.broadcast()
            }
        }
    }

    /// The outcomes given for `key`.
    func of(_ key: String) -> [IntentOutcome] { lock.withLock { outcomes[key] ?? [] } }

    /// Completion calls so far.
    var count: Int { lock.withLock { calls } }

    /// Waits (at most `seconds`) until `count` completions arrived; false when they did not.
    func wait(for count: Int, seconds: Double = 30) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        return lock.withLock {
            while calls < count {
                if !lock.wait(until: deadline) { return calls >= count }
            }
            return true
        }
    }
}

/// Commit before answer: `submit` tells each caller its intent's outcome, `.stored` only once it is in
/// the store, and every caller is told, whatever the store does.
@Suite(.blocking) struct IntentCommitTests {
    @Test(arguments: StoreKind.kinds)
    func storedIsToldOnlyOnceTheStoreHasTheIntent(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let writer = IntentWriter(store: test.store, batchSize: 64) { _ in }
        defer { writer.shutdown() }
        let log = OutcomeLog()
        let missing = Atomic<Int>(0)
        let intents = (0..<300).map { _ in Sample.intent() }
        // Submitted from several threads at once, as event loops do.
        runConcurrently(4) { part in
            for intent in intents[(part * 75)..<((part + 1) * 75)] {
                let store = test.store
                writer.submit(
                    intent,
                    completion: log.completion(for: intent.imageKey) { outcome in
                        // Read back inside the completion: stored means readable now, by anyone.
                        if outcome == .stored, (try? store.intent(imageKey: intent.imageKey)) != intent {
                            missing.add(1, ordering: .relaxed)
                        }
                    })
            }
        }
        #expect(log.wait(for: intents.count))
        for intent in intents { #expect(log.of(intent.imageKey) == [.stored]) }
        #expect(missing.load(ordering: .relaxed) == 0)
        #expect(writer.outcomeCounts.stored == intents.count)
    }

    /// No timer: one submitted intent alone is committed at once, and a commit takes everything queued
    /// meanwhile, up to the batch bound.
    @Test func aCommitStartsAsSoonAsThePreviousEndedAndTakesTheQueue() throws {
        let gated = GatedStore(InMemoryRecordStore(), closed: true)
        let writer = IntentWriter(store: gated, batchSize: 100) { _ in }
        defer { writer.shutdown() }
        let log = OutcomeLog()
        let first = Sample.intent()
        writer.submit(first, completion: log.completion(for: first.imageKey))
        #expect(eventuallyBlocking(within: 5) { gated.waiting == 1 })  // committing at once, held at the gate
        let rest = (0..<250).map { _ in Sample.intent() }
        for intent in rest { writer.submit(intent, completion: log.completion(for: intent.imageKey)) }
        #expect(log.count == 0)  // nothing is told before its commit
        gated.open()
        #expect(log.wait(for: 251))
        #expect(gated.batches == [1, 100, 100, 50])
        for intent in [first] + rest { #expect(log.of(intent.imageKey) == [.stored]) }
    }

    @Test func aFullQueueRefusesAtOnce() throws {
        let gated = GatedStore(InMemoryRecordStore(), closed: true)
        let writer = IntentWriter(store: gated, batchSize: 4, maxPending: 8, maxWaitMs: 60_000) { _ in }
        defer {
            gated.open()
            writer.shutdown()
        }
        let log = OutcomeLog()
        let intents = (0..<9).map { _ in Sample.intent() }
        for intent in intents.prefix(8) { writer.submit(intent, completion: log.completion(for: intent.imageKey)) }
        #expect(log.count == 0)
        writer.submit(intents[8], completion: log.completion(for: intents[8].imageKey))
        // Told before `submit` returned, on the caller's thread.
        #expect(log.count == 1)
        guard case .refused(.unavailable) = log.of(intents[8].imageKey).first else {
            Issue.record("expected a refusal, got \(log.of(intents[8].imageKey))")
            return
        }
        #expect(writer.isFull)
    }

    /// A stalled store (its call does not return): every wait ends at the bound with `.timedOut`, and
    /// intents whose callers were told so are not written once the store is back.
    @Test func aStalledStoreEndsEveryWaitAtTheBound() throws {
        let gated = GatedStore(InMemoryRecordStore(), closed: true)
        let writer = IntentWriter(store: gated, batchSize: 100, maxWaitMs: 300) { _ in }
        defer { writer.shutdown() }
        let log = OutcomeLog()
        let first = Sample.intent()
        let start = Date()
        writer.submit(first, completion: log.completion(for: first.imageKey))
        #expect(eventuallyBlocking(within: 5) { gated.waiting == 1 })
        let queued = (0..<20).map { _ in Sample.intent() }
        for intent in queued { writer.submit(intent, completion: log.completion(for: intent.imageKey)) }
        #expect(log.wait(for: 21))
        #expect(Date().timeIntervalSince(start) >= 0.3)
        for intent in [first] + queued { #expect(log.of(intent.imageKey) == [.timedOut]) }
        #expect(gated.waiting == 1)  // still held: the waits did not depend on the store
        gated.open()
        #expect(eventuallyBlocking(within: 5) { writer.pendingCount == 0 })
        // The batch held at the gate lands (harmless: no URL names it); the 20 behind it are left out.
        #expect(gated.batches == [1])
        for intent in queued { #expect(try gated.intent(imageKey: intent.imageKey) == nil) }
        #expect(writer.outcomeCounts.timedOut == 21)
        #expect(log.count == 21)  // each told once: the late commit told nobody again
    }

    /// A stopped store (every call fails at once): `.timedOut` at the bound, never `.stored`; once it
    /// is back, new intents are stored again.
    @Test func aStoppedStoreAnswersAtTheBoundAndRecovers() throws {
        let gated = GatedStore(InMemoryRecordStore())
        gated.fail(with: .unavailable("connection refused"))
        let errors = Collector<RecordsError>()
        let writer = IntentWriter(store: gated, batchSize: 100, maxWaitMs: 200, maxRetryDelayMs: 20) {
            errors.append($0)
        }
        defer { writer.shutdown() }
        let log = OutcomeLog()
        let intents = (0..<10).map { _ in Sample.intent() }
        for intent in intents { writer.submit(intent, completion: log.completion(for: intent.imageKey)) }
        #expect(log.wait(for: 10))
        for intent in intents { #expect(log.of(intent.imageKey) == [.timedOut]) }
        #expect(!errors.values.isEmpty)  // the outage was reported
        gated.fail(with: nil)
        let later = Sample.intent()
        writer.submit(later, completion: log.completion(for: later.imageKey))
        #expect(log.wait(for: 11))
        #expect(log.of(later.imageKey) == [.stored])
        #expect(try gated.intent(imageKey: later.imageKey) == later)
    }

    @Test func aBadIntentIsRefusedAloneAndTheRestStored() throws {
        let store = InMemoryRecordStore()
        let writer = IntentWriter(store: GatedStore(store), batchSize: 100) { _ in }
        defer { writer.shutdown() }
        let log = OutcomeLog()
        let good = (0..<5).map { _ in Sample.intent() }
        let bad = Sample.intent(allowed: ["image/png\nimage/jpeg"])
        let batch = Array(good.prefix(2)) + [bad] + Array(good.suffix(3))
        for intent in batch { writer.submit(intent, completion: log.completion(for: intent.imageKey)) }
        #expect(log.wait(for: 6))
        for intent in good { #expect(log.of(intent.imageKey) == [.stored]) }
        guard case .refused(.constraint) = log.of(bad.imageKey).first else {
            Issue.record("expected a constraint refusal, got \(log.of(bad.imageKey))")
            return
        }
        #expect(try store.intent(imageKey: bad.imageKey) == nil)
    }

    /// Whatever happens (commits, an outage the retries ride out, a stall past the bound, a shutdown
    /// in the middle of submissions), every submitted intent gets exactly one outcome, `.stored` only
    /// for what the store holds and `.timedOut` only past the bound.
    @Test func everySubmitGetsExactlyOneOutcome() throws {
        let inner = InMemoryRecordStore()
        let gated = GatedStore(inner)
        let writer = IntentWriter(store: gated, batchSize: 32, maxPending: 5_000, maxWaitMs: 1_000, maxRetryDelayMs: 10)
        {
            _ in
        }
        let log = OutcomeLog()
        var submitted: [UploadIntent] = []
        /// Submits `count` new intents from 4 threads at once, running `during` beside them.
        func phase(_ count: Int, during: (@Sendable () -> Void)? = nil) -> [UploadIntent] {
            let intents = (0..<count).map { _ in Sample.intent() }
            runConcurrently(during == nil ? 4 : 5) { part in
                guard part < 4 else {
                    during?()
                    return
                }
                for intent in intents[(part * count / 4)..<((part + 1) * count / 4)] {
                    writer.submit(intent, completion: log.completion(for: intent.imageKey))
                }
            }
            submitted += intents
            return intents
        }
        // Commits as usual.
        let usual = phase(1_000)
        #expect(log.wait(for: submitted.count))
        for intent in usual { #expect(log.of(intent.imageKey) == [.stored]) }
        // A short outage: the retries ride it out within the bound.
        gated.fail(with: .unavailable("restarting"), times: 3)
        let outage = phase(1_000)
        #expect(log.wait(for: submitted.count))
        for intent in outage { #expect(log.of(intent.imageKey) == [.stored]) }
        // A stall past the bound: every wait ends with `.timedOut`.
        gated.close()
        let stalled = phase(500)
        #expect(log.wait(for: submitted.count))
        for intent in stalled { #expect(log.of(intent.imageKey) == [.timedOut]) }
        gated.open()
        // A shutdown while submissions go on: stored or refused, each told once.
        let last = phase(1_000, during: { writer.shutdown() })
        writer.shutdown()
        #expect(log.wait(for: submitted.count))
        #expect(log.count == submitted.count)
        for intent in last {
            let outcomes = log.of(intent.imageKey)
            #expect(outcomes.count == 1)
            switch outcomes.first {
            case .stored: #expect(try inner.intent(imageKey: intent.imageKey) == intent)
            case .refused: #expect(try inner.intent(imageKey: intent.imageKey) == nil)
            default: Issue.record("unexpected \(outcomes)")
            }
        }
        let counts = writer.outcomeCounts
        #expect(counts.stored + counts.timedOut + counts.refused == submitted.count)
        #expect(counts.timedOut == stalled.count)
    }

    /// Shutdown writes what is queued, tells every caller, and refuses later submissions at once.
    @Test func shutdownTellsEveryCallerAndRefusesLaterOnes() throws {
        let store = InMemoryRecordStore()
        let writer = IntentWriter(store: store, batchSize: 10) { _ in }
        let log = OutcomeLog()
        let intents = (0..<50).map { _ in Sample.intent() }
        for intent in intents { writer.submit(intent, completion: log.completion(for: intent.imageKey)) }
        writer.shutdown()
        #expect(log.count == 50)  // all told by the time shutdown returns
        for intent in intents { #expect(log.of(intent.imageKey) == [.stored]) }
        let late = Sample.intent()
        writer.submit(late, completion: log.completion(for: late.imageKey))
        #expect(log.count == 51)
        guard case .refused = log.of(late.imageKey).first else {
            Issue.record("expected a refusal after shutdown")
            return
        }
    }

    /// Any instance can act on any stored intent at once: once the writer of one store object says
    /// `.stored`, another store object on the same file or database finds it on its first lookup.
    @Test(arguments: StoreKind.databases)
    func anotherStoreObjectFindsAStoredIntentAtOnce(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let other = try test.reopen()
        // The other object has indexed what existed before (SQLite), then sees nothing new until asked.
        #expect(try other.intent(imageKey: Sample.uuid()) == nil)
        let writer = IntentWriter(store: test.store, batchSize: 16) { _ in }
        defer { writer.shutdown() }
        let found = Atomic<Int>(0)
        let log = OutcomeLog()
        let intents = (0..<200).map { _ in Sample.intent() }
        for intent in intents {
            writer.submit(
                intent,
                completion: log.completion(for: intent.imageKey) { outcome in
                    if outcome == .stored, (try? other.intent(imageKey: intent.imageKey)) == intent {
                        found.add(1, ordering: .relaxed)
                    }
                })
        }
        #expect(log.wait(for: intents.count))
        #expect(found.load(ordering: .relaxed) == intents.count)
    }
}

/// The stalls of real databases: a table lock held by another session (PostgreSQL) or the write lock
/// held by another connection (SQLite) holds the writer's commit; every wait still ends at the bound,
/// nothing is told `.stored` meanwhile, and once the lock goes new intents are stored again.
@Suite(.blocking) struct IntentCommitStallTests {
    @Test func aLockedPostgresTableEndsWaitsAtTheBound() throws {
        let test = try TestStore.make(.postgres)
        defer { test.close() }
        let address = try #require(test.store as? PostgresRecordStore).address
        let holder = try PostgresConnection(address: address, connectTimeoutSeconds: 5)
        _ = try holder.execute("BEGIN")
        _ = try holder.execute("LOCK TABLE intents IN ACCESS EXCLUSIVE MODE")
        try checkStall(test.store) { _ = try? holder.execute("COMMIT") }
    }

    @Test func aHeldSQLiteWriteLockEndsWaitsAtTheBound() throws {
        let test = try TestStore.make(.sqlite)
        defer { test.close() }
        let path = try #require(test.store as? SQLiteRecordStore).path
        // Another connection (as another process would) takes the write lock and keeps it; the store's
        // busy timeout (5 s) outlasts the writer's bound.
        let holder = try SQLiteConnection(path: path, create: false, readOnly: false, busyTimeoutMs: 5000)
        try holder.execute("BEGIN IMMEDIATE")
        try checkStall(test.store) { try? holder.execute("COMMIT") }
    }

    /// Submits while the store is stalled, checks every wait ends `.timedOut` at the bound, releases
    /// the stall and checks a new intent is stored.
    private func checkStall(_ store: any RecordStore, release: () -> Void) throws {
        let writer = IntentWriter(store: store, batchSize: 64, maxWaitMs: 1_500) { _ in }
        defer { writer.shutdown() }
        let log = OutcomeLog()
        let stalled = (0..<20).map { _ in Sample.intent() }
        let start = Date()
        for intent in stalled { writer.submit(intent, completion: log.completion(for: intent.imageKey)) }
        #expect(log.wait(for: stalled.count))
        #expect(Date().timeIntervalSince(start) >= 1.5)
        for intent in stalled { #expect(log.of(intent.imageKey) == [.timedOut]) }
        release()
        let later = Sample.intent()
        writer.submit(later, completion: log.completion(for: later.imageKey))
        #expect(log.wait(for: stalled.count + 1))
        #expect(log.of(later.imageKey) == [.stored])
        #expect(try store.intent(imageKey: later.imageKey) == later)
    }
}
