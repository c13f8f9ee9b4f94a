/// Where each stored intent of the SQLite intent log is: a map from a 128-bit hash of the image key to
/// the intent's batch id and byte offset, kept in memory. Not thread-safe: `SQLiteIntentLog` guards it.
///
/// 128 bits of two keyed SipHash passes (Swift's `Hasher`, seeded randomly per process) make two keys
/// sharing an entry practically impossible, and an attacker cannot choose keys that do; lookups still
/// compare the full key of the intent they read. The table is open addressing with linear probing over
/// 24-byte slots, at most three-quarters full. It doubles as it fills, but never beyond what `limit`
/// entries need (the log's capacity: it never holds more): a million intents take 32 MB (1,333,335
/// slots), not the 48 MB of the next power of two, and the last growth holds 56 MB at once, not 72.
/// Any table length works: the home slot is the hash's low half scaled to the length (a multiply and
/// a shift), not its low bits masked.
struct IntentIndex {
    /// The hash of one image key.
    struct KeyHash: Hashable {
        let high: UInt64
        let low: UInt64

        /// The low half is already a keyed hash.
        func hash(into hasher: inout Hasher) { hasher.combine(low) }
    }

    /// Where an intent is: a batch id (below 2^40) and an offset in its blob (below 2^24).
    struct Location: Equatable, Comparable {
        let batch: Int64
        let offset: Int

        /// The two packed into one word.
        var packed: UInt64 { UInt64(batch) << 24 | UInt64(offset) }

        init(batch: Int64, offset: Int) {
            precondition(batch >= 0 && batch < 1 << 40, "batch id out of range")
            precondition(offset >= 0 && offset < 1 << 24, "batch offset out of range")
            self.batch = batch
            self.offset = offset
        }

        init(packed: UInt64) {
            batch = Int64(packed >> 24)
            offset = Int(packed & 0xFF_FFFF)
        }

        /// Later batches, then later offsets, hold newer intents.
        static func < (a: Location, b: Location) -> Bool { (a.batch, a.offset) < (b.batch, b.offset) }
    }

    /// One slot of the open-addressing table: a key hash and its packed location (0: the slot is empty;
    /// batch ids start at 1, so no location packs to 0).
    private struct Slot {
        var high: UInt64
        var low: UInt64
        var packed: UInt64

        static let empty = Slot(high: 0, low: 0, packed: 0)
    }

    /// The table, at most three-quarters full; linear probing from the home slot the hash's low half
    /// picks (already uniformly random, so no second hashing as a `Dictionary` would do).
    private var slots: [Slot]
    /// How many slots hold an entry.
    private(set) var count = 0
    /// The most slots the table grows to: enough for `limit` entries at three-quarters full.
    let maxSlots: Int

    /// An empty index that will hold at most `limit` entries (its table never grows beyond their need).
    init(limit: Int = Int.max / 2) {
        precondition(limit >= 0, "limit must not be negative")
        maxSlots = max(16, limit.multipliedReportingOverflow(by: 4).overflow ? Int.max / 2 : (limit * 4 + 2) / 3 + 1)
        slots = [Slot](repeating: .empty, count: min(1024, maxSlots))
    }

    /// The table's length (for tests and memory figures).
    var slotCount: Int { slots.count }

    /// The hash of `imageKey`.
    static func hash(_ imageKey: String) -> KeyHash {
        var key = imageKey
        return key.withUTF8 { bytes in
            var first = Hasher()
            first.combine(0x5052_4553_4947_4E31 as UInt64)  // two different prefixes: two independent halves
            first.combine(bytes: UnsafeRawBufferPointer(bytes))
            var second = Hasher()
            second.combine(0x5052_4553_4947_4E32 as UInt64)
            second.combine(bytes: UnsafeRawBufferPointer(bytes))
            return KeyHash(
                high: UInt64(bitPattern: Int64(first.finalize())), low: UInt64(bitPattern: Int64(second.finalize())))
        }
    }

    /// Where the intent with this hash is, or nil.
    func location(_ hash: KeyHash) -> Location? {
        let (index, found) = find(hash)
        return found ? Location(packed: slots[index].packed) : nil
    }

    /// Points `hash` at `location` unless it already points at a newer place (a batch read again while
    /// catching up must not undo a newer re-issue).
    mutating func set(_ hash: KeyHash, _ location: Location) {
        let (index, found) = find(hash)
        if found, Location(packed: slots[index].packed) > location { return }
        store(hash, location, at: index, found: found)
    }

    /// Points `hash` at `location` whatever it pointed at (a rewritten batch moves its entries).
    mutating func move(_ hash: KeyHash, _ location: Location) {
        let (index, found) = find(hash)
        store(hash, location, at: index, found: found)
    }

    /// Forgets `hash`.
    mutating func remove(_ hash: KeyHash) {
        let (index, found) = find(hash)
        if found { vacate(index) }
    }

    /// Forgets `hash` if it still points at `location`.
    mutating func remove(_ hash: KeyHash, ifAt location: Location) {
        let (index, found) = find(hash)
        if found, slots[index].packed == location.packed { vacate(index) }
    }

    /// Forgets everything.
    mutating func removeAll() {
        slots = [Slot](repeating: .empty, count: min(1024, maxSlots))
        count = 0
    }

    /// The slot holding `hash`, or the empty slot where it would go.
    private func find(_ hash: KeyHash) -> (index: Int, found: Bool) {
        let n = slots.count
        var index = Self.home(hash.low, n)
        while true {
            let slot = slots[index]
            if slot.packed == 0 { return (index, false) }
            if slot.low == hash.low && slot.high == hash.high { return (index, true) }
            index = index + 1 == n ? 0 : index + 1
        }
    }

    /// The home slot of a hash whose low half is `low` in a table of `n` slots: `low` scaled to `n`.
    private static func home(_ low: UInt64, _ n: Int) -> Int { Int(low.multipliedFullWidth(by: UInt64(n)).high) }

    /// Writes an entry into slot `index` (found: replacing it), growing the table when it gets full.
    private mutating func store(_ hash: KeyHash, _ location: Location, at index: Int, found: Bool) {
        slots[index] = Slot(high: hash.high, low: hash.low, packed: location.packed)
        guard !found else { return }
        count += 1
        // Beyond `maxSlots` only when nearly full (a caller that held more than its limit): never full.
        if count * 4 > slots.count * 3 && (slots.count < maxSlots || count * 8 > slots.count * 7) { grow() }
    }

    /// Empties slot `index`, shifting later entries of its probe run back so every entry stays reachable
    /// from its home slot (deletion without tombstones).
    private mutating func vacate(_ index: Int) {
        let n = slots.count
        var hole = index
        var next = index
        while true {
            next = next + 1 == n ? 0 : next + 1
            let slot = slots[next]
            if slot.packed == 0 { break }
            let home = Self.home(slot.low, n)
            // Move the entry into the hole unless its home lies cyclically in (hole, next].
            let homeAfterHole = hole <= next ? (home > hole && home <= next) : (home > hole || home <= next)
            if !homeAfterHole {
                slots[hole] = slot
                hole = next
            }
        }
        slots[hole] = .empty
        count -= 1
    }

    /// Doubles the table (up to `maxSlots`) and re-inserts every entry.
    private mutating func grow() {
        let old = slots
        slots = []  // the old table's only reference is `old`: no copy on write below
        slots = [Slot](repeating: .empty, count: old.count < maxSlots ? min(old.count * 2, maxSlots) : old.count * 2)
        let n = slots.count
        for slot in old where slot.packed != 0 {
            var index = Self.home(slot.low, n)
            while slots[index].packed != 0 { index = index + 1 == n ? 0 : index + 1 }
            slots[index] = slot
        }
    }
}
