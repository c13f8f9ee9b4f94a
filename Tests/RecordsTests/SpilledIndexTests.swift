import Foundation
import Testing

@testable import Records

/// The intent index's entries beyond its in-memory capacity (`SpilledIndex`): sorted runs in a file of
/// their own, read back by one block; and the SQLite store using them when its index is full.
@Suite struct SpilledIndexTests {
    /// A fresh directory for a spill file; removed by the returned closure.
    static func directory() throws -> (String, () -> Void) {
        let d = NSTemporaryDirectory() + "records-spill-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return (d, { try? FileManager.default.removeItem(atPath: d) })
    }

    static func hash(_ i: Int) -> IntentIndex.KeyHash { IntentIndex.hash("key-\(i)") }

    @Test("entries in many runs and in waiting are found, the newest place wins, an older one is refused")
    func findsEveryEntryNewestFirst() throws {
        let (d, cleanup) = try Self.directory()
        defer { cleanup() }
        let spill = SpilledIndex(directory: d, runSize: 50)
        // 1,030 entries: 20 full runs of 50 (more than one 128-entry block needs runs of 128+; see below)
        // and 30 waiting.
        for i in 0..<1030 { spill.set(Self.hash(i), IntentIndex.Location(batch: Int64(i / 10 + 1), offset: i % 10)) }
        #expect(spill.runs.count == 20)
        #expect(spill.generations.map(\.number) == [0, 1], "16 runs share a generation's filter")
        #expect(spill.count == 1030)
        for i in 0..<1030 {
            #expect(try spill.location(Self.hash(i)) == IntentIndex.Location(batch: Int64(i / 10 + 1), offset: i % 10))
        }
        for i in 1030..<1100 { #expect(try spill.location(Self.hash(i)) == nil) }
        // A newer place of an entry in an old run wins; an older one than the newest is refused.
        spill.set(Self.hash(7), IntentIndex.Location(batch: 500, offset: 3))
        spill.set(Self.hash(7), IntentIndex.Location(batch: 2, offset: 0))
        #expect(try spill.location(Self.hash(7)) == IntentIndex.Location(batch: 500, offset: 3))
        for _ in 0..<60 { spill.set(Self.hash(Int.random(in: 2000..<1_000_000)), .init(batch: 600, offset: 0)) }
        #expect(try spill.location(Self.hash(7)) == IntentIndex.Location(batch: 500, offset: 3), "now in a run")
    }

    @Test("a run's entries are sorted by hash: low half, then high half, whatever the bucket sizes")
    func sortsEntriesByHash() {
        func sorted(_ pending: [IntentIndex.KeyHash: UInt64]) -> [[UInt64]] {
            SpilledIndex.sortedEntries(pending).map { [$0.low, $0.high, $0.packed] }
        }
        func expected(_ pending: [IntentIndex.KeyHash: UInt64]) -> [[UInt64]] {
            pending.map { [$0.key.low, $0.key.high, $0.value] }.sorted { ($0[0], $0[1]) < ($1[0], $1[1]) }
        }
        #expect(sorted([:]).isEmpty)
        let one = [Self.hash(1): UInt64(9)]
        #expect(sorted(one) == expected(one))
        for count in [2, 3, 127, 1000, 65_536] {
            var pending: [IntentIndex.KeyHash: UInt64] = [:]
            for i in 0..<count { pending[Self.hash(i)] = UInt64(i) }
            #expect(sorted(pending) == expected(pending), "\(count) hashed keys")
        }
        // Hashes that share their top bits, or their whole low half (one crowded bucket), still come out in
        // order, the high half breaking ties.
        var crowded: [IntentIndex.KeyHash: UInt64] = [:]
        for i in 0..<300 {
            crowded[IntentIndex.KeyHash(high: UInt64.random(in: 0...UInt64.max), low: UInt64(i % 7))] = UInt64(i)
            crowded[IntentIndex.KeyHash(high: UInt64(i), low: UInt64.max - UInt64(i % 3))] = UInt64(i)
        }
        #expect(sorted(crowded) == expected(crowded))
    }

    @Test("runs of several blocks: every entry is found through its block's fences")
    func findsEntriesInRunsOfManyBlocks() throws {
        let (d, cleanup) = try Self.directory()
        defer { cleanup() }
        let spill = SpilledIndex(directory: d, runSize: 1000)
        for i in 0..<3000 { spill.set(Self.hash(i), IntentIndex.Location(batch: Int64(i + 1), offset: 0)) }
        #expect(spill.runs.count == 3)
        #expect(spill.runs[0].fences.count == 8, "1,000 entries in blocks of 128")
        for i in 0..<3000 {
            #expect(try spill.location(Self.hash(i)) == IntentIndex.Location(batch: Int64(i + 1), offset: 0))
        }
        var misses = 0
        for i in 3000..<13000 where try spill.location(Self.hash(i)) != nil { misses += 1 }
        #expect(misses == 0)
    }

    @Test("a run is dropped once every batch it points into is gone; an empty spill empties its file")
    func dropsRunsOfGoneBatches() throws {
        let (d, cleanup) = try Self.directory()
        defer { cleanup() }
        let spill = SpilledIndex(directory: d, runSize: 10)
        for i in 0..<40 { spill.set(Self.hash(i), IntentIndex.Location(batch: Int64(i + 1), offset: 0)) }
        #expect(spill.runs.map(\.newestBatch) == [10, 20, 30, 40])
        spill.dropRuns(before: 21)
        #expect(spill.runs.map(\.newestBatch) == [30, 40])
        #expect(try spill.location(Self.hash(5)) == nil)
        #expect(try spill.location(Self.hash(35)) == IntentIndex.Location(batch: 36, offset: 0))
        spill.dropRuns(before: 41)
        #expect(spill.runs.isEmpty && spill.isEmpty && spill.generations.isEmpty)
        // The file is unlinked: nothing of it is left in the directory.
        #expect(try FileManager.default.contentsOfDirectory(atPath: d).isEmpty)
        spill.set(Self.hash(1), IntentIndex.Location(batch: 50, offset: 1))
        #expect(try spill.location(Self.hash(1)) == IntentIndex.Location(batch: 50, offset: 1))
    }

    @Test("generations: a generation's filter goes once its last run is dropped; lookups cross generations")
    func generationsComeAndGo() throws {
        let (d, cleanup) = try Self.directory()
        defer { cleanup() }
        let spill = SpilledIndex(directory: d, runSize: 2)
        // 40 runs of 2: generations 0 (runs 0–15), 1 (16–31), 2 (32–39).
        for i in 0..<80 { spill.set(Self.hash(i), IntentIndex.Location(batch: Int64(i + 1), offset: 0)) }
        #expect(spill.generations.map(\.number) == [0, 1, 2])
        for i in 0..<80 {
            #expect(try spill.location(Self.hash(i)) == IntentIndex.Location(batch: Int64(i + 1), offset: 0))
        }
        // Runs 0–16 point into batches 1–34: dropping before 35 empties generation 0 and starts on 1.
        spill.dropRuns(before: 35)
        #expect(spill.generations.map(\.number) == [1, 2])
        #expect(spill.runs.first?.generation == 1)
        #expect(try spill.location(Self.hash(10)) == nil)
        for i in 34..<80 {
            #expect(try spill.location(Self.hash(i)) == IntentIndex.Location(batch: Int64(i + 1), offset: 0))
        }
    }

    @Test("waiting entries are in their generation's filter from the start, and keep it when every run is dropped")
    func waitingEntriesKeepTheirGeneration() throws {
        let (d, cleanup) = try Self.directory()
        defer { cleanup() }
        let spill = SpilledIndex(directory: d, runSize: 2)
        // 16 runs (generation 0) of batches 1–32, and one entry waiting (batch 33, generation 1's).
        for i in 0..<33 { spill.set(Self.hash(i), IntentIndex.Location(batch: Int64(i + 1), offset: 0)) }
        #expect(spill.runs.count == 16)
        #expect(spill.generations.map(\.number) == [0, 1])
        spill.dropRuns(before: 33)
        #expect(spill.runs.isEmpty)
        #expect(spill.generations.map(\.number) == [1], "the waiting entry's generation stays")
        // The next entry fills the run: both are found through generation 1's filter.
        spill.set(Self.hash(33), IntentIndex.Location(batch: 34, offset: 0))
        #expect(spill.runs.count == 1 && spill.runs[0].generation == 1)
        #expect(try spill.location(Self.hash(32)) == IntentIndex.Location(batch: 33, offset: 0))
        #expect(try spill.location(Self.hash(33)) == IntentIndex.Location(batch: 34, offset: 0))
        for i in 0..<32 { #expect(try spill.location(Self.hash(i)) == nil) }
    }

    // MARK: - The store with a full index

    /// A SQLite store whose index holds `capacity` intents, its spill in runs of `runSize`.
    static func store(capacity: Int, runSize: Int) throws -> (
        SQLiteRecordStore, () throws -> SQLiteRecordStore, () -> Void
    ) {
        let (d, cleanup) = try directory()
        let open = {
            let s = try SQLiteRecordStore(
                path: d + "/records.db", readers: 2, busyTimeoutMs: 5000, intentIndexCapacity: capacity,
                spillRunSize: runSize)
            try s.migrate()
            return s
        }
        return (try open(), open, cleanup)
    }

    @Test("spilled intents whose batch was rewritten (offsets moved) stay found and are expired, not dropped")
    func spilledIntentsSurviveTheirBatchBeingRewritten() throws {
        let (store, open, cleanup) = try Self.store(capacity: 1, runSize: 2)
        defer { cleanup() }
        // One batch: the first fills the index, the other five are spilled (two runs and one waiting).
        let intents = (0..<6).map { i in Sample.intent(expiresAtMs: 1_000 + Int64(i)) }
        try store.putIntents(intents)
        #expect(store.intentLog.indexedCount == 1)
        #expect(store.intentLog.spilled.entries == 5)
        // Deleting the first two rewrites the batch: every later entry moves to a new offset, while the
        // spill keeps the old ones.
        try store.deleteIntents(imageKeys: [intents[0].imageKey, intents[1].imageKey])
        for intent in intents[2...] { #expect(try store.intent(imageKey: intent.imageKey) == intent) }
        // A confirmation among them (a record): the janitor's tidy drops it, and keeps the others.
        _ = try store.insertRecords([Sample.record(owner: intents[3].ownerId, key: intents[3].imageKey)])
        #expect(try store.expiredIntents(nowMs: 1_500, limit: 10) == [intents[2], intents[4], intents[5]])
        #expect(try store.expiredIntents(nowMs: 1_500, limit: 10) == [intents[2], intents[4], intents[5]])
        for intent in [intents[2], intents[4], intents[5]] {
            #expect(try store.intent(imageKey: intent.imageKey) == intent)
            #expect(try open().intent(imageKey: intent.imageKey) == intent)
        }
        try store.deleteIntents(imageKeys: [intents[2].imageKey, intents[4].imageKey, intents[5].imageKey])
        #expect(try store.expiredIntents(nowMs: 1_500, limit: 10) == [])
        for intent in intents { #expect(try store.intent(imageKey: intent.imageKey) == nil) }
        // Every batch is gone: the janitor's pass dropped the runs.
        #expect(store.intentLog.spilled.runs == 0)
    }

    @Test("a re-issue of a spilled key wins over its spilled place, also after reopening (the spill rebuilt)")
    func aReissueOfASpilledKeyWins() throws {
        let (store, open, cleanup) = try Self.store(capacity: 2, runSize: 3)
        defer { cleanup() }
        let intents = (0..<20).map { _ in Sample.intent() }
        for chunk in stride(from: 0, to: 20, by: 4) { try store.putIntents(Array(intents[chunk..<chunk + 4])) }
        let again = Sample.intent(owner: "bob", key: intents[10].imageKey, expiresAtMs: 2_100_000_000_000)
        try store.putIntents([again])
        #expect(try store.intent(imageKey: intents[10].imageKey) == again)
        let reopened = try open()
        #expect(reopened.intentLog.indexedCount == 2)
        #expect(reopened.intentLog.spilled.entries >= 18)
        #expect(try reopened.intent(imageKey: intents[10].imageKey) == again)
        for (i, intent) in intents.enumerated() where i != 10 {
            #expect(try reopened.intent(imageKey: intent.imageKey) == intent)
        }
        // A recorded key is not given a new intent, spilled or not.
        _ = try reopened.insertRecords([Sample.record(owner: intents[15].ownerId, key: intents[15].imageKey)])
        try reopened.putIntents([Sample.intent(owner: "eve", key: intents[15].imageKey)])
        #expect(try reopened.intent(imageKey: intents[15].imageKey) == intents[15])
    }

    @Test("with the index full, a fresh key is logged without a look in the spill; any other key is looked for")
    func freshKeysAreNotLookedFor() throws {
        let (store, _, cleanup) = try Self.store(capacity: 1, runSize: 2)
        defer { cleanup() }
        try store.putIntents((0..<5).map { _ in Sample.intent() })
        #expect(store.intentLog.spilled.entries == 4)
        let before = store.intentLog.spillLookups
        let fresh = (0..<4).map { _ in
            var intent = Sample.intent()
            intent.freshKey = true
            return intent
        }
        try store.putIntents(fresh)
        #expect(store.intentLog.spillLookups == before, "a fresh key has no earlier place to look for")
        try store.putIntents([Sample.intent(), Sample.intent()])
        #expect(store.intentLog.spillLookups >= before + 2, "a key the client may have used before is looked for")
        #expect(store.intentLog.spilled.entries == 10)
        for intent in fresh { #expect(try store.intent(imageKey: intent.imageKey) == intent) }
    }

    @Test("two processes on one file, each with a full index: each finds the other's intents")
    func twoProcessesWithFullIndexes() throws {
        let (one, open, cleanup) = try Self.store(capacity: 0, runSize: 3)
        defer { cleanup() }
        let two = try open()
        let first = (0..<10).map { _ in Sample.intent() }
        let second = (0..<10).map { _ in Sample.intent() }
        try one.putIntents(first)
        try two.putIntents(second)
        for intent in first + second {
            #expect(try one.intent(imageKey: intent.imageKey) == intent)
            #expect(try two.intent(imageKey: intent.imageKey) == intent)
        }
        #expect(one.intentLog.indexedCount == 0 && two.intentLog.indexedCount == 0)
    }
}
