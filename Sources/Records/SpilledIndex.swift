import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// The intent index's entries beyond the in-memory capacity: on disk, in sorted runs written once.
///
/// Why: a key beyond the capacity used to go to the per-row `intents` table, whose index takes a random
/// page per intent (the issue route fell from 47k to 29k req/s in a 60 s run on one core once the
/// million entries were reached; docs/benchmarks.md). Here such an entry costs 24 bytes written once, in
/// order, and about 2.7 bytes of memory (Bloom filters: the run's and its generation's; one fence key
/// per 128 entries).
///
/// How: new entries wait in `pending` (at most `runSize`), each put into its generation's filter as it
/// arrives; a full `pending` is sorted by hash and appended to a file of this process (created in the
/// database's directory and unlinked at once, so it goes with the process), as a run with its filter
/// and fences kept in memory. A lookup reads `pending`, then the runs newest first: the filter says
/// whether the run may hold the hash, the fences which 128-entry block, and one `pread` reads it.
/// Entries are never changed in place: a newer place of a hash is written again (the newest wins), and a
/// removed intent's entry stays until its run is dropped; every reader checks the key at the place it is
/// given, as for the in-memory index. A run is dropped when every batch it points into is gone
/// (`dropRuns(before:)`). The file is a cache of what the batches say: opening the store builds it
/// again. Not thread-safe: `SQLiteIntentLog` uses it under its lock only.
final class SpilledIndex: @unchecked Sendable {
    /// One sorted run in the file.
    struct Run {
        /// Where it starts in the file, and its entries.
        let offset: Int
        let count: Int
        /// The first hash of each block of `blockSize` entries (low, high).
        let fences: [(UInt64, UInt64)]
        /// The Bloom filter: blocks of 512 bits (8 words, one cache line), `bloomHashes` probes of a hash
        /// all in one block, so a check costs one cache miss.
        let bloom: [UInt64]
        /// The newest batch any entry points into.
        let newestBatch: Int64
        /// The generation it belongs to (`runsPerGeneration` runs in a row share one).
        let generation: Int
    }

    /// One filter over the entries of up to `runsPerGeneration` runs written one after the other: a hash
    /// it does not hold is in none of them, which a lookup learns with one cache miss instead of one per
    /// run (every new intent whose key the client chose is looked for, to find re-issues).
    struct Generation {
        let number: Int
        var bloom: [UInt64]
    }

    /// Entries per block read by one lookup.
    static let blockSize = 128
    /// Bytes per entry on disk: the hash's low and high halves and the packed place, little-endian.
    static let entryBytes = 24
    /// Filter probes per hash (with 10 bits per entry in 512-bit blocks: about 1 % false positives).
    static let bloomHashes = 7
    /// Runs per generation filter.
    static let runsPerGeneration = 16

    /// Entries per run.
    let runSize: Int
    private let directory: String
    private var fd: Int32 = -1
    private var end = 0
    private var pending: [IntentIndex.KeyHash: UInt64] = [:]
    private(set) var runs: [Run] = []
    private(set) var generations: [Generation] = []
    private var nextRun = 0
    /// Lookups so far (`location(_:)`), for tests.
    private(set) var lookups = 0

    /// An empty spill whose file, made at the first run, goes in `directory`.
    init(directory: String, runSize: Int = 65_536) {
        precondition(runSize > 0, "runSize must be positive")
        self.directory = directory
        self.runSize = runSize
    }

    deinit {
        if fd >= 0 { Glibc.close(fd) }
    }

    /// Entries held: waiting and in runs (stale ones included).
    var count: Int { pending.count + runs.reduce(0) { $0 + $1.count } }

    /// Whether nothing was ever spilled (or everything was dropped).
    var isEmpty: Bool { pending.isEmpty && runs.isEmpty }

    /// The newest place recorded for `hash`, or nil.
    func location(_ hash: IntentIndex.KeyHash) throws(RecordsError) -> IntentIndex.Location? {
        lookups += 1
        if let packed = pending[hash] { return IntentIndex.Location(packed: packed) }
        for generation in generations.reversed() where Self.mayHold(generation.bloom, hash) {
            for run in runs.reversed() where run.generation == generation.number && Self.mayHold(run.bloom, hash) {
                if let packed = try find(hash, in: run) { return IntentIndex.Location(packed: packed) }
            }
        }
        return nil
    }

    /// Records `location` for `hash` unless a newer place is recorded (not looked for when the caller
    /// knows it is the `newest`); writes a run when `pending` is full (kept waiting, to try again at the
    /// next, when the file cannot be written).
    func set(_ hash: IntentIndex.KeyHash, _ location: IntentIndex.Location, newest: Bool = false) {
        if !newest, let known = try? self.location(hash), known > location { return }
        pending[hash] = location.packed
        // Into its generation's filter now, one entry at a time, rather than all at once when its run is
        // written: that filter spans 16 runs (1.3 MB), and 65,536 inserts in a row, a cache miss each, were
        // two thirds of a run's write after its sort was made fast.
        let generation = nextRun / Self.runsPerGeneration
        if generations.last?.number != generation {
            generations.append(
                Generation(
                    number: generation,
                    bloom: [UInt64](repeating: 0, count: Self.bloomWords(entries: Self.runsPerGeneration * runSize))))
        }
        Self.bloomInsert(&generations[generations.count - 1].bloom, hash.low, hash.high)
        if pending.count >= runSize { try? writeRun() }
    }

    /// Drops every run whose entries all point into batches before `batch` (all deleted: batch ids are
    /// never reused), and gives its space in the file back; and the waiting entries that point there.
    func dropRuns(before batch: Int64) {
        pending = pending.filter { IntentIndex.Location(packed: $0.value).batch >= batch }
        while let first = runs.first, first.newestBatch < batch {
            runs.removeFirst()
            // Its blocks go back to the filesystem (where it cannot, they stay until the file is emptied).
            _ = presignd_punch_hole(fd, Int64(first.offset), Int64(first.count * Self.entryBytes))
        }
        // A generation's filter goes with its last run, unless the waiting entries (already in it) still
        // belong to it.
        let oldestKept = runs.first?.generation ?? (pending.isEmpty ? Int.max : nextRun / Self.runsPerGeneration)
        while let first = generations.first, first.number < oldestKept { generations.removeFirst() }
        if runs.isEmpty && fd >= 0 {
            _ = ftruncate(fd, 0)
            end = 0
        }
    }

    /// Forgets everything (the store is loaded again).
    func removeAll() {
        pending = [:]
        runs = []
        generations = []
        if fd >= 0 { _ = ftruncate(fd, 0) }
        end = 0
    }

    // MARK: - Runs

    /// One entry of a run: the hash's halves and the packed place.
    struct Entry {
        var low: UInt64
        var high: UInt64
        var packed: UInt64
    }

    /// Sorts `pending` into a new run at the end of the file.
    ///
    /// On the commit path (the writer holds the log's lock), so it is kept short: a run of 65,536 took
    /// about 13 ms with the standard library's sort (stable, comparing tuples through a closure), a small
    /// array made per entry to encode it, and the generation filter's inserts (`perf`,
    /// docs/benchmarks.md); now one bucket pass, the bytes written in place, and the generation's filter
    /// filled as entries arrive (`set`).
    private func writeRun() throws(RecordsError) {
        try openFile()
        let entries = Self.sortedEntries(pending)
        let byteCount = entries.count * Self.entryBytes
        let bytes = [UInt8](unsafeUninitializedCapacity: byteCount) { buffer, initialized in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            for (i, e) in entries.enumerated() {
                let base = i * Self.entryBytes
                raw.storeBytes(of: e.low.littleEndian, toByteOffset: base, as: UInt64.self)
                raw.storeBytes(of: e.high.littleEndian, toByteOffset: base + 8, as: UInt64.self)
                raw.storeBytes(of: e.packed.littleEndian, toByteOffset: base + 16, as: UInt64.self)
            }
            initialized = byteCount
        }
        var fences: [(UInt64, UInt64)] = []
        fences.reserveCapacity(entries.count / Self.blockSize + 1)
        var bloom = [UInt64](repeating: 0, count: Self.bloomWords(entries: entries.count))
        // Its generation's filter holds its entries already (`set`).
        let generation = nextRun / Self.runsPerGeneration
        var newest: Int64 = 0
        for (i, e) in entries.enumerated() {
            if i % Self.blockSize == 0 { fences.append((e.low, e.high)) }
            Self.bloomInsert(&bloom, e.low, e.high)
            newest = max(newest, IntentIndex.Location(packed: e.packed).batch)
        }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress! + done, $0.count - done, off_t(end + done)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw .unavailable("cannot write the intent index spill: \(Self.describe(errno))") }
            done += n
        }
        runs.append(
            Run(
                offset: end, count: entries.count, fences: fences, bloom: bloom, newestBatch: newest,
                generation: generation))
        nextRun += 1
        end += bytes.count
        // Its room kept: the next run's entries fill it again (grown from empty, it was resized about 16
        // times per run).
        pending.removeAll(keepingCapacity: true)
    }

    /// The entries of `pending` sorted by hash (low half, then high half).
    ///
    /// How: the hashes are SipHash under the process's random seed (`IntentIndex.hash`), so they are
    /// spread evenly and nobody can aim at one part of the range: one counting pass on the top bits of the
    /// low half puts the entries in about as many buckets as there are entries (at most 2^20, 8 MiB of
    /// counts, should the spill's file refuse runs for a long time), in bucket order, and an insertion
    /// sort finishes each bucket (its elements never cross a bucket's edge, so it costs about one
    /// comparison per entry).
    static func sortedEntries(_ pending: [IntentIndex.KeyHash: UInt64]) -> [Entry] {
        let count = pending.count
        guard count > 1 else { return pending.map { Entry(low: $0.key.low, high: $0.key.high, packed: $0.value) } }
        let bits = min(20, Int.bitWidth - (count - 1).leadingZeroBitCount)
        let shift = UInt64(UInt64.bitWidth - bits)
        var starts = [Int](repeating: 0, count: (1 << bits) + 1)
        for key in pending.keys { starts[Int(key.low >> shift) + 1] += 1 }
        for bucket in 1..<starts.count { starts[bucket] += starts[bucket - 1] }
        var entries = [Entry](repeating: Entry(low: 0, high: 0, packed: 0), count: count)
        for (key, packed) in pending {
            let bucket = Int(key.low >> shift)
            entries[starts[bucket]] = Entry(low: key.low, high: key.high, packed: packed)
            starts[bucket] += 1
        }
        entries.withUnsafeMutableBufferPointer { e in
            for i in 1..<e.count {
                let item = e[i]
                var j = i
                while j > 0, (e[j - 1].low, e[j - 1].high) > (item.low, item.high) {
                    e[j] = e[j - 1]
                    j -= 1
                }
                e[j] = item
            }
        }
        return entries
    }

    /// Opens the spill file on first use: made in `directory` and unlinked at once.
    private func openFile() throws(RecordsError) {
        guard fd < 0 else { return }
        var template = Array((directory + "/.presignd-index-spill-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard made >= 0 else {
            throw .unavailable("cannot make the intent index spill in \(directory): \(Self.describe(errno))")
        }
        _ = template.withUnsafeBufferPointer { unlink($0.baseAddress!) }
        fd = made
    }

    /// The packed place of `hash` in `run`, or nil: the block its fences name, read with one `pread`.
    private func find(_ hash: IntentIndex.KeyHash, in run: Run) throws(RecordsError) -> UInt64? {
        let key = (hash.low, hash.high)
        // The last block whose first hash is not above the key.
        var lo = 0
        var hi = run.fences.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if run.fences[mid] <= key { lo = mid + 1 } else { hi = mid }
        }
        guard lo > 0 else { return nil }
        let block = lo - 1
        let first = block * Self.blockSize
        let n = min(Self.blockSize, run.count - first)
        var buffer = [UInt8](repeating: 0, count: n * Self.entryBytes)
        let want = buffer.count
        let read = buffer.withUnsafeMutableBytes {
            pread(fd, $0.baseAddress!, want, off_t(run.offset + first * Self.entryBytes))
        }
        guard read == want else {
            throw .unavailable("cannot read the intent index spill: \(read < 0 ? Self.describe(errno) : "short read")")
        }
        return buffer.withUnsafeBytes { raw -> UInt64? in
            for i in 0..<n {
                let base = i * Self.entryBytes
                let low = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: base, as: UInt64.self))
                guard low == hash.low else {
                    if low > hash.low { return nil }
                    continue
                }
                let high = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: base + 8, as: UInt64.self))
                if high == hash.high {
                    return UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: base + 16, as: UInt64.self))
                }
            }
            return nil
        }
    }

    // MARK: - The filter

    /// Words of a filter for `entries` entries: 10 bits each, in whole 512-bit blocks.
    private static func bloomWords(entries: Int) -> Int { 8 * max(1, (entries * 10 + 511) / 512) }

    /// Whether the filter `bloom` may hold `hash` (it has every probe's bit).
    private static func mayHold(_ bloom: [UInt64], _ hash: IntentIndex.KeyHash) -> Bool {
        bloom.withUnsafeBufferPointer { words in
            let block = Int(hash.low % UInt64(words.count / 8)) * 8
            var bits = hash.high
            for _ in 0..<bloomHashes {
                let bit = Int(bits & 511)
                if words[block + (bit >> 6)] & (1 << UInt64(bit & 63)) == 0 { return false }
                bits >>= 9
            }
            return true
        }
    }

    /// Sets the bits of the hash (`low`, `high`) in `bloom`: 7 bit numbers of 9 bits each from `high`,
    /// in the block `low` picks.
    private static func bloomInsert(_ bloom: inout [UInt64], _ low: UInt64, _ high: UInt64) {
        let block = Int(low % UInt64(bloom.count / 8)) * 8
        var bits = high
        for _ in 0..<bloomHashes {
            let bit = Int(bits & 511)
            bloom[block + (bit >> 6)] |= 1 << UInt64(bit & 63)
            bits >>= 9
        }
    }

    private static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }
}
