import Foundation
import TestSupport
import Testing

@testable import Records

/// The contract of `EventInbox` (schema version 7), on every store.
@Suite(.blocking) struct EventInboxConformanceTests {
    @Test(arguments: StoreKind.kinds)
    func eventsAreTakenUnderALeaseAndFinished(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.full
        let bodies: [[UInt8]] = [Array(#"{"Records":[]}"#.utf8), [0, 1, 2, 255], []]
        var ids: [Int64] = []
        for (index, body) in bodies.enumerated() {
            ids.append(
                try store.enqueueEvent(
                    source: "rgw", body: body, receivedAtMs: 1_000 + Int64(index), limits: InboxLimits()))
        }
        #expect(ids == ids.sorted() && Set(ids).count == 3)
        #expect(
            try store.inboxStats() == InboxStats(pending: 3, oldestPendingReceivedAtMs: 1_000, done: 0, rejected: 0))
        // Nothing is due before it was received.
        #expect(try store.takeEvents(nowMs: 999, limit: 10, leaseMs: 5_000, token: "a").isEmpty)
        let taken = try store.takeEvents(nowMs: 2_000, limit: 2, leaseMs: 5_000, token: "a")
        #expect(taken.map(\.id) == Array(ids.prefix(2)))
        #expect(taken.map(\.body) == Array(bodies.prefix(2)))
        #expect(taken.allSatisfy { $0.attempts == 1 && $0.state == .pending && $0.source == "rgw" })
        // Leased entries are not handed out again; the third is.
        let other = try store.takeEvents(nowMs: 2_001, limit: 10, leaseMs: 5_000, token: "b")
        #expect(other.map(\.id) == [ids[2]] && other[0].body == [])
        // Finishing needs the lease's token.
        #expect(try store.finishEvent(id: ids[0], token: "b", outcome: .done, nowMs: 3_000) == false)
        #expect(try store.finishEvent(id: ids[0], token: "a", outcome: .done, nowMs: 3_000))
        #expect(try store.finishEvent(id: ids[0], token: "a", outcome: .done, nowMs: 3_001) == false)
        #expect(try store.finishEvent(id: ids[2], token: "b", outcome: .rejected(reason: "unknown-key"), nowMs: 3_000))
        // A retry makes it due again later, attempts counted.
        #expect(
            try store.finishEvent(
                id: ids[1], token: "a", outcome: .retry(dueAtMs: 10_000, reason: "storage"), nowMs: 3_000))
        #expect(try store.takeEvents(nowMs: 9_999, limit: 10, leaseMs: 5_000, token: "c").isEmpty)
        let again = try store.takeEvents(nowMs: 10_000, limit: 10, leaseMs: 5_000, token: "c")
        #expect(again.map(\.id) == [ids[1]] && again[0].attempts == 2 && again[0].reason == "storage")
        // A processor that crashed: its lease runs out and the entry is due again.
        #expect(try store.takeEvents(nowMs: 14_999, limit: 10, leaseMs: 5_000, token: "d").isEmpty)
        let retaken = try store.takeEvents(nowMs: 15_000, limit: 10, leaseMs: 5_000, token: "d")
        #expect(retaken.map(\.id) == [ids[1]] && retaken[0].attempts == 3)
        #expect(try store.finishEvent(id: ids[1], token: "c", outcome: .done, nowMs: 15_001) == false)
        #expect(try store.finishEvent(id: ids[1], token: "d", outcome: .done, nowMs: 15_001))
        #expect(try store.inboxStats() == InboxStats(pending: 0, oldestPendingReceivedAtMs: nil, done: 2, rejected: 1))
        // Finished entries are pruned by age.
        #expect(try store.pruneEvents(finishedBeforeMs: 3_001, limit: 10) == 2)
        #expect(try store.inboxStats() == InboxStats(pending: 0, oldestPendingReceivedAtMs: nil, done: 1, rejected: 0))
        #expect(try store.pruneEvents(finishedBeforeMs: 99_000, limit: 10) == 1)
    }

    @Test(arguments: StoreKind.kinds)
    func theInboxIsBounded(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.full
        let limits = InboxLimits(maxBodyBytes: 16, maxPending: 2)
        #expect(throws: RecordsError.self) {
            try store.enqueueEvent(
                source: "rgw", body: Array(repeating: 65, count: 17), receivedAtMs: 1, limits: limits)
        }
        let first = try store.enqueueEvent(
            source: "rgw", body: Array(repeating: 65, count: 16), receivedAtMs: 1, limits: limits)
        _ = try store.enqueueEvent(source: "sns", body: [1], receivedAtMs: 2, limits: limits)
        do {
            _ = try store.enqueueEvent(source: "rgw", body: [1], receivedAtMs: 3, limits: limits)
            Issue.record("a full inbox took one more")
        } catch {
            guard case .unavailable = error else {
                Issue.record("a full inbox threw \(error)")
                return
            }
        }
        // Room comes back once an entry is finished.
        let taken = try store.takeEvents(nowMs: 5, limit: 1, leaseMs: 1_000, token: "t")
        #expect(taken.map(\.id) == [first])
        #expect(try store.finishEvent(id: first, token: "t", outcome: .done, nowMs: 6))
        _ = try store.enqueueEvent(source: "rgw", body: [1], receivedAtMs: 7, limits: limits)
        #expect(throws: RecordsError.self) { try store.takeEvents(nowMs: 0, limit: 0, leaseMs: 1, token: "t") }
    }

    @Test(arguments: StoreKind.databases)
    func concurrentProcessorsTakeDisjointEntries(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let stores = [test.full, try test.reopen() as! any ExactlyOnceStore]
        for index in 0..<60 {
            _ = try stores[0].enqueueEvent(source: "rgw", body: [UInt8(index)], receivedAtMs: 1, limits: InboxLimits())
        }
        let taken = Collector<Int64>()
        runConcurrently(6) { index in
            while true {
                do {
                    let events = try stores[index % 2].takeEvents(
                        nowMs: 10, limit: 4, leaseMs: 60_000, token: "p\(index)")
                    if events.isEmpty { return }
                    for event in events { taken.append(event.id) }
                } catch {
                    Issue.record("take failed: \(error)")
                    return
                }
            }
        }
        #expect(taken.values.count == 60)
        #expect(Set(taken.values).count == 60)
    }

    @Test(arguments: StoreKind.databases)
    func anEventIsDurableWhenEnqueueReturns(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let body = Array(#"{"Records":[{"eventName":"ObjectCreated:Put"}]}"#.utf8)
        let id = try test.full.enqueueEvent(source: "minio", body: body, receivedAtMs: 42, limits: InboxLimits())
        let other = try test.reopen() as! any ExactlyOnceStore
        let taken = try other.takeEvents(nowMs: 42, limit: 10, leaseMs: 1, token: "t")
        #expect(
            taken == [InboxEvent(id: id, source: "minio", body: body, receivedAtMs: 42, attempts: 1, state: .pending)])
    }
}
