import Synchronization

/// SQLite's intents: batches appended to `intent_batches` (one row and one blob per batch) and found
/// through an in-memory index, with the entries beyond its capacity in a `SpilledIndex` (sorted runs on
/// disk). The per-row `intents` table is only read (and emptied) for files that have rows in it: it was
/// the overflow before the spill.
///
/// Why: an intent inserted into an indexed table costs about 10 µs of the writer's CPU (each dirties a
/// random index page, written to the WAL); one row per batch costs well under 1 µs per intent, which is
/// what lets a URL be issued at the rate the event loop can sign them (docs/records.md, Benchmarks).
///
/// The index is rebuilt from the batches when the store opens (`load`). Batches written by another
/// process on the same file are read before each lookup (`catchUp`); a batch rewritten by another
/// process is re-read when the offset the index holds no longer starts the wanted key (`heal`). Every
/// method that writes runs on the store's one writer connection, inside its transaction, and returns the
/// index changes to `apply` after the commit, so the index never points at something uncommitted.
final class SQLiteIntentLog: Sendable {
    /// The index and what this process knows of the file.
    struct State {
        /// Where each logged intent is.
        var index: IntentIndex
        /// Every batch with an id up to this one is in the index.
        var lastSeenBatch: Int64 = 0
        /// The per-row `intents` table may hold rows (an overflow happened, or the file had some).
        var rowsMayExist = true
        /// Index entries beyond the in-memory capacity.
        var spill: SpilledIndex
        /// Entries that went to the spill because the in-memory index was full.
        var overflowed = 0
        /// The image key hash of the logged intent writing each object key that differs from its image key
        /// (a multipart upload's `key#uploadId`, a templated client key): how `lookup(objectKey:)` finds it.
        /// At most one entry per indexed intent; a stale one (its intent re-issued or removed) is dropped
        /// when a lookup meets it.
        var aliases: [IntentIndex.KeyHash: IntentIndex.KeyHash] = [:]

        /// Where the intent with this hash is: the in-memory index, else the spill.
        func location(_ hash: IntentIndex.KeyHash) throws(RecordsError) -> IntentIndex.Location? {
            if let location = index.location(hash) { return location }
            return spill.isEmpty ? nil : try spill.location(hash)
        }

        /// Points `hash` at `location` unless a newer place is known: in memory when the hash is there or
        /// there is room (never an older place over a newer one in the spill), else in the spill. A hash
        /// in memory is always newer than any place of it in the spill.
        /// `newest`: nothing newer than `location` can be known (the caller's own batch, applied before any
        /// later one was seen), so the spill need not be asked.
        mutating func set(
            _ hash: IntentIndex.KeyHash, _ location: IntentIndex.Location, capacity: Int, newest: Bool = false
        ) {
            if index.location(hash) == nil {
                if !newest, !spill.isEmpty, let spilled = try? spill.location(hash), spilled > location { return }
                if index.count >= capacity {
                    spill.set(hash, location, newest: newest)
                    overflowed += 1
                    return
                }
            }
            index.set(hash, location)
        }

        /// Points `hash` at `location` (its batch was rewritten) when it is in memory or there is room; a
        /// spilled place keeps its old offset (readers look for the key in the batch it names).
        mutating func move(_ hash: IntentIndex.KeyHash, _ location: IntentIndex.Location, capacity: Int) {
            guard index.location(hash) != nil || index.count < capacity else { return }
            index.move(hash, location)
        }
    }

    /// One change to the index, applied after its transaction commits.
    enum Change {
        /// The intent with this hash is at this place, unless the index knows a newer one.
        case set(IntentIndex.KeyHash, IntentIndex.Location)
        /// The intent moved within its rewritten batch.
        case move(IntentIndex.KeyHash, IntentIndex.Location)
        /// The intent at this place is gone.
        case remove(IntentIndex.KeyHash, IntentIndex.Location)
        /// The intent of the second hash (an image key) writes the object key of the first.
        case alias(IntentIndex.KeyHash, IntentIndex.KeyHash)
        /// The intent of the second hash is gone: its object key's alias goes too, if it is still its.
        case unalias(IntentIndex.KeyHash, IntentIndex.KeyHash)
    }

    /// The most intents the in-memory index holds before new entries go to the spill.
    let capacity: Int
    /// The index and file state.
    private let state: Mutex<State>
    /// Where the spill's file goes, and its run size.
    private let spillDirectory: String
    private let spillRunSize: Int
    /// The most batches one `expired` call examines.
    static let maxBatchesPerScan = 64

    /// A log whose in-memory index holds at most `capacity` intents, the rest spilled to a file in
    /// `spillDirectory` (the database's) in runs of `spillRunSize`.
    init(capacity: Int, spillDirectory: String, spillRunSize: Int = 65_536) {
        precondition(capacity >= 0, "capacity must not be negative")
        self.capacity = capacity
        self.spillDirectory = spillDirectory
        self.spillRunSize = spillRunSize
        state = Mutex(
            State(
                index: IntentIndex(limit: capacity),
                spill: SpilledIndex(directory: spillDirectory, runSize: spillRunSize)))
    }

    /// How many intents the in-memory index holds.
    var indexedCount: Int { state.withLock { $0.index.count } }

    /// How many index entries went to the spill (the in-memory index was full) since this log was made.
    var overflowCount: Int { state.withLock { $0.overflowed } }

    /// Entries the spill holds (stale ones included, until their run is dropped), and its runs.
    var spilled: (entries: Int, runs: Int) { state.withLock { ($0.spill.count, $0.spill.runs.count) } }

    /// How many times the spill was looked in so far (for tests).
    var spillLookups: Int { state.withLock { $0.spill.lookups } }

    // MARK: - Loading and catching up

    /// Rebuilds the index from every batch in the file.
    func load(_ c: SQLiteConnection) throws(RecordsError) {
        var loaded = State(
            index: IntentIndex(limit: capacity), spill: SpilledIndex(directory: spillDirectory, runSize: spillRunSize))
        var last: Int64 = 0
        try forEachBatch(c, after: 0) { (id, blob) throws(RecordsError) in
            for (offset, intent) in try Self.entries(blob, id: id) {
                let hash = IntentIndex.hash(intent.imageKey)
                loaded.set(hash, IntentIndex.Location(batch: id, offset: offset), capacity: capacity)
                if let alias = Self.alias(of: intent, hash) { loaded.aliases[alias.0] = alias.1 }
            }
            last = id
        }
        let rows = try c.query(SQLiteQueries.anyIntentRow, []) { _ in true }
        // Ids are never reused (AUTOINCREMENT): the next batch of ours follows the highest ever given, even
        // when the newest batches were deleted since.
        let issued = try c.query(SQLiteQueries.lastBatchIssued, []) { $0.int64(0) }.first ?? 0
        state.withLock { s in
            s.index = loaded.index
            s.aliases = loaded.aliases
            s.spill = loaded.spill
            s.overflowed += loaded.overflowed
            s.lastSeenBatch = max(last, issued)
            s.rowsMayExist = !rows.isEmpty
        }
    }

    /// Indexes the batches other processes appended since this one last looked; true if there were any.
    @discardableResult
    func catchUp(_ c: SQLiteConnection) throws(RecordsError) -> Bool {
        let since = state.withLock { $0.lastSeenBatch }
        let newest = try c.query(SQLiteQueries.newestBatch, []) { $0.int64(0) }.first ?? 0
        guard newest > since else { return false }
        var changes: [Change] = []
        var last = since
        try forEachBatch(c, after: since) { (id, blob) throws(RecordsError) in
            for (offset, intent) in try Self.entries(blob, id: id) {
                let hash = IntentIndex.hash(intent.imageKey)
                changes.append(.set(hash, IntentIndex.Location(batch: id, offset: offset)))
                if let alias = Self.alias(of: intent, hash) { changes.append(.alias(alias.0, alias.1)) }
            }
            last = id
        }
        apply(changes)
        state.withLock { s in s.lastSeenBatch = max(s.lastSeenBatch, last) }
        return true
    }

    // MARK: - Writing

    /// Whether the per-row table may hold intents.
    var rowsMayExist: Bool { state.withLock { $0.rowsMayExist } }

    /// Appends `intents` as one batch (or a few, for very large ones) inside the caller's transaction on
    /// the writer; returns the index changes. A re-issued key whose image is recorded keeps its intent
    /// (the new one is skipped).
    func append(_ intents: [UploadIntent], _ c: SQLiteConnection) throws(RecordsError) -> Appended {
        let hashes = intents.map { IntentIndex.hash($0.imageKey) }
        // A fresh key (a UUID this server has just drawn, `UploadIntent.freshKey`) has no intent and no
        // row anywhere yet: it is not looked for. Once the index is full, that lookup read the spill's
        // filters (a cache miss per generation) for every new intent of the issue route.
        let (known, rowsMayExist) = try state.withLock { (s) throws(RecordsError) in
            var known = [Bool](repeating: false, count: intents.count)
            for i in intents.indices where !intents[i].freshKey { known[i] = try s.location(hashes[i]) != nil }
            return (known, s.rowsMayExist)
        }
        // Usually every intent is new: then the batch is logged as it came, with no per-key work.
        var skipped = [Bool]()  // empty while nothing is skipped
        for i in intents.indices where known[i] || (rowsMayExist && !intents[i].freshKey) {
            var logIt = true
            if known[i] {
                // A re-issue: it replaces the indexed intent unless that one was confirmed.
                logIt = try !isRecorded(intents[i].imageKey, c)
            } else {
                if rowsMayExist {
                    // The key may have a row from an overflow: the logged intent replaces it, and a recorded
                    // key gets no new intent (as in the per-row table).
                    let key = intents[i].imageKey
                    logIt = try !isRecorded(key, c)
                    if logIt {
                        try c.run(SQLiteQueries.deleteIntent, [.int(SQLiteRecordStore.keyHash(key)), .text(key)])
                    }
                }
            }
            if !logIt {
                if skipped.isEmpty { skipped = [Bool](repeating: false, count: intents.count) }
                skipped[i] = true
            }
        }
        let logged = skipped.isEmpty ? intents : intents.indices.filter { !skipped[$0] }.map { intents[$0] }
        let loggedHashes = skipped.isEmpty ? hashes : hashes.indices.filter { !skipped[$0] }.map { hashes[$0] }
        guard !logged.isEmpty else { return Appended(changes: [], batches: nil) }
        let (blobs, places) = try IntentBatchCodec.encode(logged)
        var ids: [Int64] = []
        for blob in blobs {
            let next = logged.indices.filter { places[$0].batch == ids.count }.map { logged[$0].expiresAtMs }.min() ?? 0
            try c.run(SQLiteQueries.insertBatch, [.int(next), .blob(blob)])
            ids.append(c.lastInsertedRowID)
        }
        var changes: [Change] = []
        changes.reserveCapacity(logged.count)
        for (i, place) in places.enumerated() {
            changes.append(.set(loggedHashes[i], IntentIndex.Location(batch: ids[place.batch], offset: place.offset)))
            // Client P's and client B's default intents write their image key: no alias, no work.
            if let alias = Self.alias(of: logged[i], loggedHashes[i]) { changes.append(.alias(alias.0, alias.1)) }
        }
        return Appended(changes: changes, batches: ids.first.map { $0...ids[ids.count - 1] })
    }

    /// What `append` did.
    struct Appended {
        /// The index changes to apply after the commit.
        let changes: [Change]
        /// The ids of the batches written, or nil.
        let batches: ClosedRange<Int64>?
    }

    /// Applies changes from a committed transaction; `appended`: the batches that transaction wrote
    /// (`append`'s changes).
    func apply(_ changes: [Change], appended: ClosedRange<Int64>? = nil) {
        guard !changes.isEmpty else { return }
        state.withLock { s in
            // Batches are indexed in id order (`catchUp`): if none at or after these was seen yet, nothing
            // newer than their places is known.
            let newest = appended.map { $0.lowerBound > s.lastSeenBatch } ?? false
            for change in changes {
                switch change {
                case .set(let hash, let location): s.set(hash, location, capacity: capacity, newest: newest)
                case .move(let hash, let location): s.move(hash, location, capacity: capacity)
                case .remove(let hash, let location): s.index.remove(hash, ifAt: location)
                case .alias(let object, let image): s.aliases[object] = image
                case .unalias(let object, let image): if s.aliases[object] == image { s.aliases[object] = nil }
                }
            }
        }
    }

    /// Records that this process committed batches `first...last`: if they follow the last batch it had
    /// seen, no other process wrote in between, so nothing needs catching up.
    func committed(batches first: Int64, _ last: Int64) {
        state.withLock { s in
            if first == s.lastSeenBatch + 1 { s.lastSeenBatch = last }
        }
    }

    /// Notes that the per-row table was found empty.
    func noteNoRows() {
        state.withLock { $0.rowsMayExist = false }
    }

    // MARK: - Reading

    /// The logged intent for `imageKey`, or nil (then the per-row table may still have one). Reads with
    /// `c` (a reader) after catching up with batches other processes appended (one indexed query when
    /// there are none); a place that no longer holds the key is healed.
    func lookup(_ imageKey: String, _ c: SQLiteConnection) throws(RecordsError) -> UploadIntent? {
        try catchUp(c)
        let hash = IntentIndex.hash(imageKey)
        guard let location = try state.withLock({ (s) throws(RecordsError) in try s.location(hash) }) else {
            return nil
        }
        let found = try c.query(SQLiteQueries.batchData, [.int(location.batch)]) {
            (row) throws(RecordsError) -> UploadIntent? in
            try row.withBlob(0) { (blob) throws(RecordsError) -> UploadIntent? in
                if let intent = IntentBatchCodec.decode(blob, at: location.offset),
                    intent.imageKey.hasSameBytes(as: imageKey)
                {
                    return intent
                }
                return try heal(hash, imageKey, from: location, blob)
            }
        }
        if found.isEmpty {
            // The batch is gone (another process deleted it).
            state.withLock { $0.index.remove(hash, ifAt: location) }
        }
        return found.first ?? nil
    }

    /// Finds `imageKey` again in a batch whose offsets changed (another process rewrote it), fixing the
    /// index; nil (and the entry dropped) when the batch no longer holds it.
    private func heal(
        _ hash: IntentIndex.KeyHash, _ imageKey: String, from location: IntentIndex.Location,
        _ blob: UnsafeRawBufferPointer
    ) throws(RecordsError) -> UploadIntent? {
        let newest = try Self.entries(blob, id: location.batch).last { $0.intent.imageKey.hasSameBytes(as: imageKey) }
        state.withLock { s in
            guard s.index.location(hash) == location else { return }
            if let newest {
                s.index.move(hash, IntentIndex.Location(batch: location.batch, offset: newest.offset))
            } else {
                s.index.remove(hash)
            }
        }
        return newest?.intent
    }

    /// The logged intent of another image key that writes `objectKey` (its alias), or nil (then the
    /// per-row table may still have one). Reads with `c` after catching up; a stale alias is dropped.
    func lookup(objectKey: String, _ c: SQLiteConnection) throws(RecordsError) -> UploadIntent? {
        try catchUp(c)
        let objectHash = IntentIndex.hash(objectKey)
        guard
            let (imageHash, location) = try state.withLock({
                (s) throws(RecordsError) -> (IntentIndex.KeyHash, IntentIndex.Location)? in
                guard let image = s.aliases[objectHash], let location = try s.location(image) else { return nil }
                return (image, location)
            })
        else { return nil }
        let found = try c.query(SQLiteQueries.batchData, [.int(location.batch)]) {
            (row) throws(RecordsError) -> UploadIntent? in
            try row.withBlob(0) { (blob) throws(RecordsError) -> UploadIntent? in
                guard let intent = IntentBatchCodec.decode(blob, at: location.offset),
                    intent.objectKey.hasSameBytes(as: objectKey), IntentIndex.hash(intent.imageKey) == imageHash
                else { return nil }
                return intent
            }
        }
        if let intent = found.first ?? nil { return intent }
        // Re-issued with another object key, removed, or rewritten by another process: the alias is stale.
        state.withLock { s in if s.aliases[objectHash] == imageHash { s.aliases[objectHash] = nil } }
        return nil
    }

    // MARK: - Deleting and expiring

    /// Removes the intents with these keys from their batches (rewriting or deleting each batch) inside
    /// the caller's transaction on the writer; returns the index changes.
    func delete(_ imageKeys: [String], _ c: SQLiteConnection) throws(RecordsError) -> [Change] {
        // Batches of other processes first: a key this process has not indexed yet would be missed.
        try catchUp(c)
        var byBatch: [Int64: Set<[UInt8]>] = [:]
        try state.withLock { (s) throws(RecordsError) in
            for key in imageKeys {
                if let location = try s.location(IntentIndex.hash(key)) {
                    byBatch[location.batch, default: []].insert(Array(key.utf8))
                }
            }
        }
        var changes: [Change] = []
        for (batch, keys) in byBatch.sorted(by: { $0.key < $1.key }) {
            let entries = try batchEntries(batch, c)
            changes += try rewrite(batch, entries, keeping: { !keys.contains(Array($0.imageKey.utf8)) }, c)
        }
        return changes
    }

    /// Examines up to `maxBatchesPerScan` batches whose next expiry has passed, in id order after `after`,
    /// inside the caller's transaction on the writer: returns their expired intents that are current in
    /// the index and have no record (at most `limit`, soonest first), and tidies each batch on the way:
    /// superseded intents and expired ones that were confirmed are dropped, the batch is rewritten with
    /// the rest and its next expiry, or deleted when nothing is left. Also returns the index changes and
    /// the last batch examined, or nil when no due batch is left after it: the caller goes on from there
    /// in a new transaction until it has `limit` intents or no batch is left, so tidying many batches of
    /// confirmed intents never holds the writer long, and never stops early.
    func expired(nowMs: Int64, limit: Int, after: Int64, _ c: SQLiteConnection) throws(RecordsError) -> (
        intents: [UploadIntent], changes: [Change], lastBatch: Int64?
    ) {
        // Batches of other processes first: their entries are current, and a batch rewritten without
        // them (taken for superseded) would lose them.
        try catchUp(c)
        let batches = try c.query(
            SQLiteQueries.dueBatches, [.int(after), .int(nowMs), .int(Int64(Self.maxBatchesPerScan))]
        ) { row in (row.int64(0), row.int64(1)) }
        var found: [UploadIntent] = []
        var changes: [Change] = []
        var lastBatch: Int64?
        for (batch, storedNext) in batches {
            lastBatch = batch
            let entries = try batchEntries(batch, c)
            let current = try currentEntries(entries, batch: batch)
            var confirmed = Set<[UInt8]>()
            var due: [UploadIntent] = []
            for entry in current where entry.intent.expiresAtMs <= nowMs {
                if try isRecorded(entry.intent.imageKey, c) {
                    confirmed.insert(Array(entry.intent.imageKey.utf8))
                } else {
                    due.append(entry.intent)
                }
            }
            let kept = current.filter { !confirmed.contains(Array($0.intent.imageKey.utf8)) }
            let next = kept.map(\.intent.expiresAtMs).min()
            if kept.count != entries.count || next != storedNext {
                changes += try rewrite(batch, entries, keeping: { !confirmed.contains(Array($0.imageKey.utf8)) }, c)
            }
            found += due
            if found.count >= limit { break }
        }
        found.sort(by: Self.expiryOrder)
        // Fewer due batches than asked for: none is left after these.
        let more = batches.count == Self.maxBatchesPerScan || found.count >= limit
        if !more { try dropSpilledRuns(c) }
        return (Array(found.prefix(limit)), changes, more ? lastBatch : nil)
    }

    /// The entries of a batch that the index points at (the others were superseded or deleted): the key's
    /// last entry in the batch the index names. Not the exact offset: another process may have rewritten
    /// the batch since (its entries moved; this index learns of it at a lookup, `heal`), and a place in
    /// the spill keeps the offset it had when it was spilled. The caller has caught up with every batch,
    /// so the batch the index names is the newest that held the key.
    private func currentEntries(_ entries: [(offset: Int, intent: UploadIntent)], batch: Int64) throws(RecordsError)
        -> [(offset: Int, intent: UploadIntent)]
    {
        let hashes = entries.map { IntentIndex.hash($0.intent.imageKey) }
        var last: [IntentIndex.KeyHash: Int] = [:]
        for (i, hash) in hashes.enumerated() { last[hash] = i }
        return try state.withLock { (s) throws(RecordsError) in
            var current: [(offset: Int, intent: UploadIntent)] = []
            for i in entries.indices where last[hashes[i]] == i {
                if try s.location(hashes[i])?.batch == batch { current.append(entries[i]) }
            }
            return current
        }
    }

    /// Drops the spill's runs that point only into batches that are gone.
    private func dropSpilledRuns(_ c: SQLiteConnection) throws(RecordsError) {
        guard state.withLock({ !$0.spill.runs.isEmpty }) else { return }
        let oldest = try c.query(SQLiteQueries.oldestBatch, []) { $0.optionalInt64(0) }.first ?? nil
        state.withLock { $0.spill.dropRuns(before: oldest ?? Int64.max) }
    }

    /// Rewrites `batch` with its current entries that `keeping` accepts (deleting it when none is left)
    /// and returns the index changes.
    private func rewrite(
        _ batch: Int64, _ entries: [(offset: Int, intent: UploadIntent)], keeping: (UploadIntent) -> Bool,
        _ c: SQLiteConnection
    ) throws(RecordsError) -> [Change] {
        let current = try currentEntries(entries, batch: batch)
        let kept = current.filter { keeping($0.intent) }
        var changes: [Change] = []
        for entry in current where !keeping(entry.intent) {
            let hash = IntentIndex.hash(entry.intent.imageKey)
            changes.append(.remove(hash, IntentIndex.Location(batch: batch, offset: entry.offset)))
            if let alias = Self.alias(of: entry.intent, hash) { changes.append(.unalias(alias.0, alias.1)) }
        }
        guard let next = kept.map(\.intent.expiresAtMs).min() else {
            try c.run(SQLiteQueries.deleteBatch, [.int(batch)])
            return changes
        }
        // The kept entries are a subset of one batch, so they fit one blob again.
        let (blobs, places) = try IntentBatchCodec.encode(kept.map(\.intent))
        guard blobs.count == 1 else { throw .corrupt("intent batch \(batch) does not fit one blob when rewritten") }
        try c.run(SQLiteQueries.updateBatch, [.int(batch), .int(next), .blob(blobs[0])])
        for (i, entry) in kept.enumerated() {
            changes.append(
                .move(
                    IntentIndex.hash(entry.intent.imageKey),
                    IntentIndex.Location(batch: batch, offset: places[i].offset)))
        }
        return changes
    }

    // MARK: - Helpers

    /// The alias of `intent` (hashed `hash`): its object key's hash and its image key's, when the two keys
    /// differ; nil when the intent writes its own image key (found by it).
    static func alias(of intent: UploadIntent, _ hash: IntentIndex.KeyHash) -> (
        IntentIndex.KeyHash, IntentIndex.KeyHash
    )? {
        if intent.objectKey.hasSameBytes(as: intent.imageKey) { return nil }
        return (IntentIndex.hash(intent.objectKey), hash)
    }

    /// Soonest expiry first, then image keys in byte order (SQLite's `ORDER BY expires_at_ms, image_key`).
    static func expiryOrder(_ a: UploadIntent, _ b: UploadIntent) -> Bool {
        if a.expiresAtMs != b.expiresAtMs { return a.expiresAtMs < b.expiresAtMs }
        return a.imageKey.utf8.lexicographicallyPrecedes(b.imageKey.utf8)
    }

    /// Whether `imageKey` has a record.
    private func isRecorded(_ imageKey: String, _ c: SQLiteConnection) throws(RecordsError) -> Bool {
        try !c.query(SQLiteQueries.recordExists, [.text(imageKey)]) { _ in true }.isEmpty
    }

    /// The entries of batch `batch` (none when it is gone).
    private func batchEntries(_ batch: Int64, _ c: SQLiteConnection) throws(RecordsError) -> [(
        offset: Int, intent: UploadIntent
    )] {
        try c.query(SQLiteQueries.batchData, [.int(batch)]) { (row) throws(RecordsError) in
            try row.withBlob(0) { (blob) throws(RecordsError) in try Self.entries(blob, id: batch) }
        }.first ?? []
    }

    /// Calls `body` with each batch after id `after`, oldest first.
    private func forEachBatch(
        _ c: SQLiteConnection, after: Int64, _ body: (Int64, UnsafeRawBufferPointer) throws(RecordsError) -> Void
    ) throws(RecordsError) {
        _ = try c.query(SQLiteQueries.batchesAfter, [.int(after)]) { (row) throws(RecordsError) in
            let id = row.int64(0)
            try row.withBlob(1) { (blob) throws(RecordsError) in try body(id, blob) }
        }
    }

    /// The entries of the blob of batch `id`, or a corruption error.
    private static func entries(_ blob: UnsafeRawBufferPointer, id: Int64) throws(RecordsError) -> [(
        offset: Int, intent: UploadIntent
    )] {
        guard let entries = IntentBatchCodec.decodeAll(blob) else {
            throw .corrupt("intent batch \(id) cannot be decoded")
        }
        return entries
    }
}
