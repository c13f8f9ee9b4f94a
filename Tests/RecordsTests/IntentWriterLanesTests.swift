import Foundation
import RecordsTestSupport
import TestSupport
import Testing

@testable import Records

/// The intent writer's lanes: which lane an intent takes, a second commit in flight only for fresh keys
/// once the first lane's queue is long, and a re-issued key written in order.
@Suite(.blocking) struct IntentWriterLanesTests {
    /// An intent whose key the server has just drawn (`UploadIntent.freshKey`).
    static func fresh() -> UploadIntent {
        var intent = Sample.intent()
        intent.freshKey = true
        return intent
    }

    /// A lane queues its next batch in the emptied buffers of the last one, keeping their room up to a
    /// limit: a queue that grew in a burst gives its memory back.
    @Test func emptiedBuffersKeepTheirRoomUpToALimit() {
        var small = Array(0..<100)
        let room = small.capacity
        IntentLane.empty(&small, keepingUpTo: 512)
        #expect(small.isEmpty && small.capacity == room)
        var large = Array(0..<10_000)
        IntentLane.empty(&large, keepingUpTo: 512)
        #expect(large.isEmpty && large.capacity < 512)
    }

    @Test func theRoutingRule() {
        let plain = Sample.intent()
        let fresh = Self.fresh()
        let spill = IntentWriter.spillAt
        // One lane: always it.
        #expect(IntentWriter.lane(for: fresh, queued: { _ in 10_000 }, count: 1) == 0)
        // A key that may have been issued before: the first lane, however long its queue.
        #expect(IntentWriter.lane(for: plain, queued: { $0 == 0 ? 10_000 : 0 }, count: 2) == 0)
        // A fresh key: the first lane until its queue holds `spillAt`...
        #expect(IntentWriter.lane(for: fresh, queued: { $0 == 0 ? spill - 1 : 0 }, count: 2) == 0)
        // ...then the lane with the shortest queue, the first one included.
        #expect(IntentWriter.lane(for: fresh, queued: { $0 == 0 ? spill : 0 }, count: 2) == 1)
        #expect(IntentWriter.lane(for: fresh, queued: { [spill, spill + 5, 3][$0] }, count: 3) == 2)
        #expect(IntentWriter.lane(for: fresh, queued: { [spill, spill + 5, spill + 1][$0] }, count: 3) == 0)
    }

    @Test func theStoreChoosesTheLanes() throws {
        #expect(InMemoryRecordStore().intentWriteLanes == 1)
        let writer = IntentWriter(store: InMemoryRecordStore(), batchSize: 10) { _ in }
        defer { writer.shutdown() }
        #expect(writer.laneCount == 1)
        let forced = IntentWriter(store: InMemoryRecordStore(), batchSize: 10, lanes: 3) { _ in }
        defer { forced.shutdown() }
        #expect(forced.laneCount == 3)
    }

    /// Waits until `condition` holds (every 5 ms, at most `seconds`).
    static func until(seconds: Double = 10, _ condition: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if condition() { return true }
            usleep(5_000)
        }
        return condition()
    }

    @Test func freshKeysBeyondTheFirstLanesQueueCommitOnTheSecondAtOnce() throws {
        let gated = GatedStore(InMemoryRecordStore(), closed: true)
        let writer = IntentWriter(store: gated, batchSize: 256, maxWaitMs: 60_000, lanes: 2) { _ in }
        defer { writer.shutdown() }
        let log = OutcomeLog()
        var intents: [UploadIntent] = []
        // The first commit holds one intent and waits at the gate; the next `spillAt` fill the first
        // lane's queue; the rest go to the second lane, whose commit waits at the gate beside the first.
        let first = Self.fresh()
        intents.append(first)
        writer.submit(first, completion: log.completion(for: first.imageKey))
        #expect(Self.until { gated.waiting == 1 })
        for _ in 0..<(IntentWriter.spillAt + 20) {
            let intent = Self.fresh()
            intents.append(intent)
            writer.submit(intent, completion: log.completion(for: intent.imageKey))
        }
        #expect(Self.until { gated.waiting == 2 }, "two commits in flight at once")
        gated.open()
        #expect(log.wait(for: intents.count))
        for intent in intents {
            #expect(log.of(intent.imageKey) == [.stored])
            #expect(try gated.inner.intent(imageKey: intent.imageKey) == intent)
        }
        #expect(writer.outcomeCounts.stored == intents.count)
        #expect(writer.pendingCount == 0)
    }

    @Test func keysThatAreNotFreshNeverCommitOnTwoLanesAtOnce() throws {
        let gated = GatedStore(InMemoryRecordStore(), closed: true)
        let writer = IntentWriter(store: gated, batchSize: 256, maxWaitMs: 60_000, lanes: 2) { _ in }
        defer { writer.shutdown() }
        let log = OutcomeLog()
        let intents = (0..<(IntentWriter.spillAt * 3)).map { _ in Sample.intent() }
        for intent in intents { writer.submit(intent, completion: log.completion(for: intent.imageKey)) }
        #expect(Self.until { gated.waiting == 1 })
        // Time for a second lane to start a commit, if one wrongly took any of them.
        usleep(200_000)
        #expect(gated.waiting == 1)
        gated.open()
        #expect(log.wait(for: intents.count))
        #expect(writer.outcomeCounts.stored == intents.count)
    }

    /// `maxPending` bounds all lanes together: keys that are not fresh (all on the first lane) may fill
    /// the whole bound, and fresh keys spread over both lanes never exceed it.
    @Test(arguments: [false, true])
    func theQueueBoundIsSharedByTheLanes(freshKeys: Bool) throws {
        let gated = GatedStore(InMemoryRecordStore(), closed: true)
        let bound = IntentWriter.spillAt * 4
        let writer = IntentWriter(
            store: gated, batchSize: 16, maxPending: bound, maxWaitMs: 60_000, lanes: 2
        ) { _ in }
        defer { writer.shutdown() }
        let log = OutcomeLog()
        let intents = (0..<(bound + 10)).map { _ in freshKeys ? Self.fresh() : Sample.intent() }
        for intent in intents { writer.submit(intent, completion: log.completion(for: intent.imageKey)) }
        // The ten beyond the bound are refused at once, whichever lane they were routed to.
        #expect(log.count == 10)
        for intent in intents.suffix(10) {
            guard case .refused = log.of(intent.imageKey).first else {
                Issue.record("\(intent.imageKey) beyond the bound was not refused: \(log.of(intent.imageKey))")
                continue
            }
        }
        #expect(writer.pendingCount == bound)
        #expect(writer.isFull)
        #expect(Self.until { gated.waiting == (freshKeys ? 2 : 1) })
        gated.open()
        #expect(log.wait(for: intents.count))
        for intent in intents.prefix(bound) { #expect(log.of(intent.imageKey) == [.stored]) }
        #expect(writer.pendingCount == 0)
        #expect(!writer.isFull)
    }

    /// A key re-issued over and over while fresh intents keep both lanes busy: what is stored is the
    /// newest, on every store (PostgreSQL runs two lanes by itself).
    @Test(arguments: StoreKind.kinds)
    func aReissuedKeyEndsWithItsNewestIntent(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let writer = IntentWriter(store: test.store, batchSize: 32, lanes: 2) { _ in }
        defer { writer.shutdown() }
        let log = OutcomeLog()
        let key = Sample.uuid()
        var submitted = 0
        var last = Sample.intent(key: key)
        for round in 0..<40 {
            last = Sample.intent(owner: "owner-1", key: key, expiresAtMs: 2_000_000_000_000 + Int64(round))
            writer.submit(last, completion: log.completion(for: key))
            submitted += 1
            for _ in 0..<20 {
                let intent = Self.fresh()
                writer.submit(intent, completion: log.completion(for: intent.imageKey))
                submitted += 1
            }
        }
        #expect(log.wait(for: submitted))
        #expect(log.of(key) == [IntentOutcome](repeating: .stored, count: 40))
        #expect(try test.store.intent(imageKey: key) == last)
    }
}
