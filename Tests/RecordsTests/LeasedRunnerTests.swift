import Foundation
import RecordsTestSupport
import Synchronization
import System
import TestSupport
import Testing

@testable import Records

/// `LeasedRunner`: passes run only while the lease is held, one runner at a time across runners on one
/// store, the next holder takes over when the holder stops, and a lost lease stops the pass at once.
@Suite(.blocking) struct LeasedRunnerTests {
    /// A clock the test moves (epoch ms).
    final class TestClock: Sendable {
        let ms = Atomic<Int64>(1_000_000)
        var now: @Sendable () -> Int64 { { [self] in ms.load(ordering: .relaxed) } }
    }

    /// Two runners of one job on one store (in memory, and SQLite through two store objects, as two
    /// processes would): passes never overlap, each pass's writes go through under its fence, and when the
    /// holder stops (releasing the lease) the other takes over under a greater token.
    @Test(arguments: [StoreKind.inMemory, .sqlite])
    func oneRunnerAtATimeAndTakeoverOnStop(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let stores: [any SharedStateStore] =
            kind == .inMemory ? [test.shared, test.shared] : [test.shared, try test.reopen() as! any SharedStateStore]
        let running = Atomic<Int>(0)
        let overlaps = Atomic<Int>(0)
        let passes = Collector<(runner: Int, token: Int64)>()
        // A lease of 6 s renewed every 2 s: no stall of a loaded machine runs it out, so the only
        // takeover is the one after `stop` (which releases it; the other's keeper takes it within 2 s).
        func runner(_ index: Int) -> LeasedRunner {
            LeasedRunner(
                store: stores[index],
                options: .init(name: "janitor", holder: "instance-\(index)", ttlMs: 6_000, intervalMs: 5),
                now: { Int64(Date().timeIntervalSince1970 * 1000) }
            ) { pass in
                if running.add(1, ordering: .relaxed).newValue > 1 { overlaps.add(1, ordering: .relaxed) }
                defer { running.subtract(1, ordering: .relaxed) }
                let fenced = try? pass.fenced { _ throws(RecordsError) in true }
                if case .done = fenced { passes.append((index, pass.lease.token)) }
                usleep(3_000)
            }
        }
        let first = runner(0)
        let second = runner(1)
        first.start()
        let reached1 = eventuallyBlocking(within: 10, pollMs: 2) { passes.values.count >= 3 }
        #expect(reached1)
        second.start()
        usleep(200_000)
        first.stop()
        let reached2 = eventuallyBlocking(within: 10, pollMs: 2) { passes.values.contains { $0.runner == 1 } }
        #expect(reached2)
        second.stop()
        let overlapping = overlaps.load(ordering: .relaxed)
        #expect(overlapping == 0)
        let firstTokens = Set(passes.values.filter { $0.runner == 0 }.map(\.token))
        let secondTokens = Set(passes.values.filter { $0.runner == 1 }.map(\.token))
        #expect(firstTokens.count == 1 && secondTokens.count == 1)
        #expect((secondTokens.first ?? 0) > (firstTokens.first ?? .max))
    }

    /// The holder's lease runs out (its clock and the store's agree it is past its end, as when the
    /// process stalled) and another instance takes it: the pass in progress sees `isLost` at once, its
    /// next fenced write is refused without writing, and the runner reports the loss.
    @Test(arguments: [StoreKind.inMemory, .sqlite])
    func aLostLeaseStopsThePassAtOnce(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.shared
        let clock = TestClock()
        let key = Sample.uuid()
        try store.putIntents([Sample.intent(key: key)])
        let inPass = Atomic<Bool>(false)
        let stoppedAfterLoss = Atomic<Bool>(false)
        let refusedWrite = Atomic<Bool>(false)
        let events = Collector<LeasedRunner.Event>()
        let runner = LeasedRunner(
            store: store, options: .init(name: "janitor", holder: "a", ttlMs: 60_000, intervalMs: 60_000),
            now: clock.now, events: { events.append($0) }
        ) { pass in
            inPass.store(true, ordering: .relaxed)
            while pass.mayContinue { usleep(1_000) }
            // The pass went on past the loss once more: the store refuses it.
            if case .lost = try? pass.fenced({ (writes) throws(RecordsError) in
                try writes.deleteIntents(imageKeys: [key])
            }) {
                refusedWrite.store(true, ordering: .relaxed)
            }
            stoppedAfterLoss.store(true, ordering: .relaxed)
        }
        runner.start()
        defer { runner.stop() }
        let reached3 = eventuallyBlocking(within: 10, pollMs: 2) { inPass.load(ordering: .relaxed) }
        #expect(reached3)
        // A minute passes without a renewal reaching the store; another instance takes the lease.
        clock.ms.add(61_000, ordering: .relaxed)
        guard
            case .acquired(let thief, tookOver: true) = try store.acquireLease(
                name: "janitor", holder: "b", nowMs: clock.now(), ttlMs: 60_000)
        else { Issue.record("no takeover"); return }
        #expect(thief.token == 2)
        let reached4 = eventuallyBlocking(within: 10, pollMs: 2) { stoppedAfterLoss.load(ordering: .relaxed) }
        #expect(reached4)
        let refused = refusedWrite.load(ordering: .relaxed)
        #expect(refused)
        #expect(try store.intent(imageKey: key) != nil)
    }

    /// `stop` during a pass: the pass is told to start nothing new (`mayContinue` false, `holds` false),
    /// the outcome of the item in hand is still written under the lease (it is held until the runner gives
    /// it up), and the lease is given up once the pass has returned.
    @Test(arguments: [StoreKind.inMemory, .sqlite])
    func stopLetsThePassWriteWhatItFinished(kind: StoreKind) async throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.shared
        let clock = TestClock()
        let key = Sample.uuid()
        try store.putIntents([Sample.intent(key: key)])
        let inPass = Atomic<Bool>(false)
        let written = Atomic<Bool>(false)
        let startedMore = Atomic<Bool>(false)
        let runner = LeasedRunner(
            store: store, options: .init(name: "janitor", holder: "a", ttlMs: 60_000, intervalMs: 60_000),
            now: clock.now
        ) { pass in
            inPass.store(true, ordering: .relaxed)
            // The item in hand takes until the runner is told to stop.
            while pass.mayContinue { usleep(1_000) }
            if pass.holds(forAtLeastMs: 0) { startedMore.store(true, ordering: .relaxed) }
            if case .done = try? pass.fenced({ (writes) throws(RecordsError) in
                try writes.deleteIntents(imageKeys: [key])
            }) {
                written.store(true, ordering: .relaxed)
            }
        }
        runner.start()
        let reached = eventuallyBlocking(within: 10, pollMs: 2) { inPass.load(ordering: .relaxed) }
        #expect(reached)
        try await onThread { runner.stop() }
        let wrote = written.load(ordering: .relaxed)
        let more = startedMore.load(ordering: .relaxed)
        #expect(wrote)
        #expect(!more)
        #expect(try store.intent(imageKey: key) == nil)
        // Given up after the pass: another holder takes it at once (the clock has not moved).
        let next = try store.acquireLease(name: "janitor", holder: "b", nowMs: clock.now(), ttlMs: 60_000)
        guard case .acquired = next else {
            Issue.record("not given up: \(next)")
            return
        }
    }

    /// A renewal refused by the store (the lease taken over while the holder's clock still says it holds)
    /// marks the pass lost and is reported.
    @Test func aRefusedRenewalIsALoss() throws {
        let store = InMemoryRecordStore()
        let clock = TestClock()
        let events = Collector<LeasedRunner.Event>()
        let lostSeen = Atomic<Bool>(false)
        let runner = LeasedRunner(
            store: store, options: .init(name: "j", holder: "a", ttlMs: 30, intervalMs: 60_000), now: clock.now,
            events: { events.append($0) }
        ) { pass in
            while pass.mayContinue { usleep(1_000) }
            lostSeen.store(true, ordering: .relaxed)
        }
        runner.start()
        defer { runner.stop() }
        let reached5 = eventuallyBlocking(within: 10, pollMs: 2) { (try? store.lease(name: "j")) != nil }
        #expect(reached5)
        // Release it behind the holder's back and let another take it; the holder's clock stands still.
        guard let held = try store.lease(name: "j") else { return }
        #expect(try store.releaseLease(held, nowMs: clock.now()))
        _ = try store.acquireLease(name: "j", holder: "b", nowMs: clock.now(), ttlMs: 60_000)
        let reached6 = eventuallyBlocking(within: 10, pollMs: 2) { lostSeen.load(ordering: .relaxed) }
        #expect(reached6)
        let reached7 = eventuallyBlocking(within: 10, pollMs: 2) { events.values.contains(.lost(held)) }
        #expect(reached7)
    }

    /// The passes run at the worker's nice value; the keeper's renewals do not (a busy CPU must not cost
    /// the lease).
    @Test func passesRunAtTheWorkersNiceValue() throws {
        let store = InMemoryRecordStore()
        let seen = Collector<Int32>()
        let runner = LeasedRunner(
            store: store,
            options: .init(name: "scanner", holder: "a", ttlMs: 6_000, intervalMs: 5, workerNice: 10),
            now: { Int64(Date().timeIntervalSince1970 * 1000) }
        ) { _ in seen.append(PThread.nice()) }
        runner.start()
        let reached = eventuallyBlocking(within: 10, pollMs: 2) { seen.values.count >= 2 }
        runner.stop()
        #expect(reached)
        #expect(!seen.values.isEmpty && seen.values.allSatisfy { $0 == 10 })
        #expect(PThread.nice() != 10)
    }
}
