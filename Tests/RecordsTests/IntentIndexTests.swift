import TestSupport
import Testing

@testable import Records

/// The in-memory intent index: an open-addressing table checked against a Dictionary model, with keys
/// made to collide and to wrap around the end of the table.
@Suite struct IntentIndexTests {
    typealias KeyHash = IntentIndex.KeyHash
    typealias Location = IntentIndex.Location

    @Test(arguments: [
        // (seed, how many distinct low halves: few means long probe runs and many shifted deletions)
        (UInt64(1), 8), (2, 64), (3, 100_000), (4, 3),
    ])
    func agreesWithADictionaryThroughInsertsMovesAndRemovals(seed: UInt64, lows: Int) {
        var random = SplitMix64(seed: seed)
        var index = IntentIndex()
        var model: [KeyHash: Location] = [:]
        // Low halves near the table's end wrap around to its start.
        let keys = (0..<1_000).map { i in
            KeyHash(high: UInt64(i), low: UInt64.random(in: 0..<UInt64(lows), using: &random) &+ 1_020)
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
