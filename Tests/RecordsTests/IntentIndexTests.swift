import TestSupport
import Testing

@testable import Records

/// The in-memory intent index: an open-addressing table checked against a Dictionary model, with keys
/// made to collide and to wrap around the end of the table.
@Suite struct IntentIndexTests {
    typealias KeyHash = IntentIndex.KeyHash
    typealias Location = IntentIndex.Location

    @Test(arguments: [
        // (seed, how many distinct low halves: few means long probe runs and many shifted deletions,
        // the limit: 1,000 makes a table of 1,335 slots, not a power of two)
        (UInt64(1), 8, Int.max / 2), (2, 64, Int.max / 2), (3, 100_000, Int.max / 2), (4, 3, Int.max / 2),
        (5, 8, 1_000), (6, 100_000, 1_000),
    ])
    func agreesWithADictionaryThroughInsertsMovesAndRemovals(seed: UInt64, lows: Int, limit: Int) {
        var random = SplitMix64(seed: seed)
        var index = IntentIndex(limit: limit)
        var model: [KeyHash: Location] = [:]
        // Low halves near the top of their range have their home in the table's last slot: their probe
        // runs wrap around to its start.
        let keys = (0..<1_000).map { i in
            KeyHash(high: UInt64(i), low: UInt64.max - UInt64.random(in: 0..<UInt64(lows), using: &random))
        }
        for step in 0..<40_000 {
            let key = keys.randomElement(using: &random)!
            let location = Location(
                batch: Int64.random(in: 1...50, using: &random), offset: Int.random(in: 1...9, using: &random))
            switch Int.random(in: 0..<5, using: &random) {
            case 0, 1:
                index.set(key, location)
                if let old = model[key], old > location { break }
                model[key] = location
            case 2:
                index.move(key, location)
                model[key] = location
            case 3:
                index.remove(key)
                model[key] = nil
            default:
                if let at = model[key], Bool.random(using: &random) {
                    index.remove(key, ifAt: at)
                    model[key] = nil
                } else {
                    index.remove(key, ifAt: location)
                    if model[key] == location { model[key] = nil }
                }
            }
            if step % 3_989 == 0 || step == 39_999 {
                #expect(index.count == model.count, "step \(step)")
                for key in keys where index.location(key) != model[key] {
                    Issue.record(
                        "step \(step): \(key) at \(String(describing: index.location(key))), model \(String(describing: model[key]))"
                    )
                    return
                }
            }
        }
    }

    /// The table grows to what its limit needs and no further (a million entries: 1,333,335 slots, 32
    /// MB, not 2^21 and 48 MB); a caller holding more than the limit still never fills it.
    @Test func aBoundedTableStopsAtItsLimitsNeed() {
        var random = SplitMix64(seed: 7)
        var index = IntentIndex(limit: 100_000)
        #expect(IntentIndex(limit: 1_000_000).maxSlots == 1_333_335)
        let keys = (0..<120_000).map { _ in KeyHash(high: random.next(), low: random.next()) }
        for (i, key) in keys.prefix(100_000).enumerated() { index.set(key, Location(batch: 1, offset: i)) }
        #expect(index.slotCount == 133_335 && index.maxSlots == 133_335)
        #expect(keys.prefix(100_000).enumerated().allSatisfy { index.location($1) == Location(batch: 1, offset: $0) })
        for key in keys.prefix(50_000) { index.remove(key) }
        #expect(index.count == 50_000 && keys.prefix(50_000).allSatisfy { index.location($0) == nil })
        for (i, key) in keys.enumerated().dropFirst(50_000) { index.set(key, Location(batch: 2, offset: i)) }
        #expect(index.count == 70_000 && index.slotCount == 133_335)
        for (i, key) in keys.enumerated().prefix(50_000) { index.set(key, Location(batch: 3, offset: i)) }
        #expect(index.count == 120_000 && index.slotCount > 133_335, "past the limit it grows before it fills")
        #expect(keys.enumerated().allSatisfy { index.location($1) != nil })
    }

    @Test func locationsPackAndOrder() {
        let far = Location(batch: (1 << 40) - 1, offset: (1 << 24) - 1)
        #expect(Location(packed: far.packed) == far)
        #expect(Location(batch: 2, offset: 1) > Location(batch: 1, offset: 99))
        #expect(Location(batch: 2, offset: 5) > Location(batch: 2, offset: 4))
        var index = IntentIndex()
        let key = KeyHash(high: 1, low: 2)
        index.set(key, Location(batch: 5, offset: 1))
        index.set(key, Location(batch: 4, offset: 9))  // older: ignored
        #expect(index.location(key) == Location(batch: 5, offset: 1))
        index.move(key, Location(batch: 5, offset: 3))
        #expect(index.location(key) == Location(batch: 5, offset: 3))
        index.removeAll()
        #expect(index.count == 0 && index.location(key) == nil)
    }

    @Test func theHashOfAKeyIsStableWithinAProcessAndSpreads() {
        #expect(IntentIndex.hash("delete/a.jpg") == IntentIndex.hash("delete/a.jpg"))
        let hashes = Set((0..<10_000).map { IntentIndex.hash("k\($0)") })
        #expect(hashes.count == 10_000)
        #expect(Set(hashes.map(\.high)).count == 10_000)
    }
}
