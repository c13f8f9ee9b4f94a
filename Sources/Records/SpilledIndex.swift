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
/// How: new entries wait in `pending` (at most `runSize`); a full `pending` is sorted by hash and
/// appended to a file of this process (created in the database's directory and unlinked at once, so it
/// goes with the process), as a run with its filter and fences kept in memory. A lookup reads `pending`,
/// then the runs newest first: the filter says whether the run may hold the hash, the fences which
/// 128-entry block, and one `pread` reads it. Entries are never changed in place: a newer place of a hash
/// is written again (the newest wins), and a removed intent's entry stays until its run is dropped; every
/// reader checks the key at the place it is given, as for the in-memory index. A run is dropped when
/// every batch it points into is gone (`dropRuns(before:)`). The file is a cache of what the batches
/// say: opening the store builds it again. Not thread-safe: `SQLiteIntentLog` uses it under its lock only.
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
    /// run (every new intent is looked for, to find re-issues).
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
        if pending.count >= runSize { try? writeRun() }
    }

    /// Drops every run whose entries all point into batches before `batch` (all deleted: batch ids are
    /// never reused), and gives its space in the file back; and the waiting entries that point there.
    func dropRuns(before batch: Int64) {
        pending = pending.filter { IntentIndex.Location(packed: $0.value).batch >= batch }
        while let first = runs.first, first.newestBatch < batch {
            runs.removeFirst()
            if generations.first.map({ $0.number < (runs.first?.generation ?? Int.max) }) == true {
                generations.removeFirst()
            }
            // Its blocks go back to the filesystem (where it cannot, they stay until the file is emptied).
            _ = presignd_punch_hole(fd, Int64(first.offset), Int64(first.count * Self.entryBytes))
        }
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

    /// Sorts `pending` into a new run at the end of the file.
    private func writeRun() throws(RecordsError) {
        try openFile()
        let entries = pending.map { (low: $0.key.low, high: $0.key.high, packed: $0.value) }.sorted {
            ($0.low, $0.high) < ($1.low, $1.high)
        }
        var bytes = [UInt8]()
        bytes.reserveCapacity(entries.count * Self.entryBytes)
        var fences: [(UInt64, UInt64)] = []
        fences.reserveCapacity(entries.count / Self.blockSize + 1)
        var bloom = [UInt64](repeating: 0, count: Self.bloomWords(entries: entries.count))
        let generation = nextRun / Self.runsPerGeneration
        if generations.last?.number != generation {
            generations.append(
                Generation(
                    number: generation,
                    bloom: [UInt64](repeating: 0, count: Self.bloomWords(entries: Self.runsPerGeneration * runSize))))
        }
        var newest: Int64 = 0
        for (i, e) in entries.enumerated() {
            if i % Self.blockSize == 0 { fences.append((e.low, e.high)) }
            for word in [e.low, e.high, e.packed] {
                withUnsafeBytes(of: word.littleEndian) { bytes.append(contentsOf: $0) }
            }
            Self.bloomInsert(&bloom, e.low, e.high)
            Self.bloomInsert(&generations[generations.count - 1].bloom, e.low, e.high)
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
        pending = [:]
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
