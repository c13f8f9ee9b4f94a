/// Where each stored intent of the SQLite intent log is: a map from a 128-bit hash of the image key to
/// the intent's batch id and byte offset, kept in memory. Not thread-safe: `SQLiteIntentLog` guards it.
///
/// 128 bits of two keyed SipHash passes (Swift's `Hasher`, seeded randomly per process) make two keys
/// sharing an entry practically impossible, and an attacker cannot choose keys that do; lookups still
/// compare the full key of the intent they read. One entry costs about 32–48 bytes (a 24-byte slot in a
/// table at most three-quarters full), so a million intents take about 40 MB.
struct IntentIndex {
    /// The hash of one image key.
    struct KeyHash: Hashable {
        let high: UInt64
        let low: UInt64
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

    /// The entries.
    private var entries: [KeyHash: UInt64] = [:]

    /// How many intents are indexed.
    var count: Int { entries.count }

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
        entries[hash].map(Location.init(packed:))
    }

    /// Points `hash` at `location` unless it already points at a newer place (a batch read again while
    /// catching up must not undo a newer re-issue).
    mutating func set(_ hash: KeyHash, _ location: Location) {
        if let old = entries[hash], Location(packed: old) > location { return }
        entries[hash] = location.packed
    }

    /// Points `hash` at `location` whatever it pointed at (a rewritten batch moves its entries).
    mutating func move(_ hash: KeyHash, _ location: Location) {
        entries[hash] = location.packed
    }

    /// Forgets `hash`.
    mutating func remove(_ hash: KeyHash) {
        entries[hash] = nil
    }

    /// Forgets `hash` if it still points at `location`.
    mutating func remove(_ hash: KeyHash, ifAt location: Location) {
        if entries[hash] == location.packed { entries[hash] = nil }
    }

    /// Forgets everything.
    mutating func removeAll() {
        entries = [:]
    }
}
