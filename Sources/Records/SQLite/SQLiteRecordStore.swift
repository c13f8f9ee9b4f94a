import CSQLite
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The embedded store: one SQLite file in WAL mode with `synchronous=FULL`.
///
/// Writes go through a single writer connection (so this process never contends with itself for SQLite's
/// write lock; the busy timeout covers other processes); reads use a small pool of read-only connections,
/// which WAL lets run beside the writer. Every statement is prepared once per connection and cached.
public final class SQLiteRecordStore: RecordStore {
    /// The writer's page cache. Record ids and keys are random UUIDs, so each group commit dirties pages
    /// all over the records' two unique indexes, read back from the file when they are not cached; but
    /// intent rows are appended, and every page they fill stays in the cache until it is full, so its
    /// size is what the process grows by under issuing load (docs/records.md, "Memory"). 8 MiB: a
    /// server after 500,000 URLs issued holds 12 MiB more than idle (21 MiB at 16 MiB), and group commit
    /// of records kept its rate in side-by-side runs (10,100–10,600 records/s against 9,600–12,300).
    static let writerCacheKiB = 8_192
    /// Each reader's page cache.
    static let readerCacheKiB = 2_048

    /// The database file.
    public let path: String
    /// The one connection that writes.
    let writer: ConnectionPool<SQLiteConnection>
    /// The read-only connections.
    private let readers: ConnectionPool<SQLiteConnection>
    /// Write transactions committed.
    private let commits = Atomic<Int>(0)
    /// Checkpoints the WAL off the writer's commits.
    let checkpointer: SQLiteCheckpointer

    // The checkpoint thread holds its checkpointer, not the store: it is stopped here, so a store let go
    // (tests open many) leaves no thread or connection behind.
    deinit { checkpointer.stop() }

    /// Opens (creating the file and its directory if missing) the database at `path`, with up to
    /// `readers` read connections beside the writer, each waiting up to `busyTimeoutMs` for a lock.
    public init(path: String, readers: Int, busyTimeoutMs: Int) throws(RecordsError) {
        guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file:") else {
            throw .invalidURL("SQLite needs a file path, not '\(path)'")
        }
        try Self.createParentDirectory(of: path)
        let first = try SQLiteConnection(
            path: path, create: true, readOnly: false, busyTimeoutMs: busyTimeoutMs, cacheKiB: Self.writerCacheKiB)
        let mode = try first.scalarText("PRAGMA journal_mode = WAL")
        guard mode?.lowercased() == "wal" else {
            throw .unavailable("SQLite database \(path) refused WAL mode (journal_mode is \(mode ?? "unknown"))")
        }
        // Checkpoint after 16,384 WAL pages (64 MiB) instead of SQLite's 1,000: index pages dirtied by many
        // commits are then copied into the database once per checkpoint, not once per thousand pages.
        // A Python replay of intent inserts into a 300k-row table: kernel time 6.8 -> 2.9 us per row.
        // And on a thread of its own (`SQLiteCheckpointer`), so that no commit waits for a checkpoint.
        let checkpointer = SQLiteCheckpointer(path: path, busyTimeoutMs: busyTimeoutMs)
        checkpointer.watch(first)
        self.checkpointer = checkpointer
        self.path = path
        let opened = Mutex<SQLiteConnection?>(first)
        writer = ConnectionPool(
            maxSize: 1,
            connect: { () throws(RecordsError) -> SQLiteConnection in
                if let connection = opened.withLock({ $0.take() }) { return connection }
                let connection = try SQLiteConnection(
                    path: path, create: true, readOnly: false, busyTimeoutMs: busyTimeoutMs,
                    cacheKiB: Self.writerCacheKiB)
                checkpointer.watch(connection)
                return connection
            },
            isBroken: { _ in false })
        self.readers = ConnectionPool(
            maxSize: max(1, readers),
            connect: { () throws(RecordsError) -> SQLiteConnection in
                try SQLiteConnection(
                    path: path, create: false, readOnly: true, busyTimeoutMs: busyTimeoutMs,
                    cacheKiB: Self.readerCacheKiB)
            },
            isBroken: { _ in false })
    }

    /// Write transactions committed so far.
    public var committedTransactions: Int { commits.load(ordering: .relaxed) }

    /// Applies the missing migrations in one `BEGIN IMMEDIATE` transaction (a version's program, if it has
    /// one, after its statements: `SQLiteSchema.programs`).
    public func migrate() throws(RecordsError) {
        try write { (connection) throws(RecordsError) in
            try connection.execute(SQLiteSchema.versionTable)
            let current =
                Int(try connection.scalarText("SELECT COALESCE(MAX(version), 0) FROM schema_version") ?? "0") ?? 0
            guard current <= Schema.latestVersion else {
                throw .unavailable("schema version \(current) is newer than this build knows (\(Schema.latestVersion))")
            }
            let applied = Set(
                try connection.query("SELECT version FROM schema_version", []) { Int($0.int64(0)) })
            for migration in Schema.missingMigrations(applied: applied) {
                for statement in migration.sqlite { try connection.execute(statement) }
                try SQLiteSchema.programs[migration.version]?(connection)
                try connection.run("INSERT INTO schema_version (version) VALUES (?1)", [.int(Int64(migration.version))])
            }
        }
    }

    /// The version recorded in `schema_version` (0 before the first migration).
    public func schemaVersion() throws(RecordsError) -> Int {
        try read { (connection) throws(RecordsError) in
            let exists = try connection.query(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'", []
            ) { _ in true }
            guard !exists.isEmpty else { return 0 }
            return Int(try connection.scalarText("SELECT COALESCE(MAX(version), 0) FROM schema_version") ?? "0") ?? 0
        }
    }

    /// Runs `SELECT 1` on a read connection.
    public func ping() throws(RecordsError) {
        _ = try read { (connection) throws(RecordsError) in try connection.scalarText("SELECT 1") }
    }

    /// `PRAGMA integrity_check`: "ok" for a sound file, else SQLite's list of problems.
    public func integrityCheck() throws(RecordsError) -> String {
        try readWriter { (connection) throws(RecordsError) in
            try connection.query("PRAGMA integrity_check", []) { $0.text(0) }.joined(separator: "\n")
        }
    }

    /// Inserts records in one transaction; an already stored key gives `.existing`.
    public func insertRecords(_ records: [ImageRecord]) throws(RecordsError) -> [InsertOutcome] {
        guard !records.isEmpty else { return [] }
        return try write { (connection) throws(RecordsError) in
            var outcomes: [InsertOutcome] = []
            outcomes.reserveCapacity(records.count)
            for record in records {
                if try connection.run(SQLiteQueries.insertRecord, Schema.values(of: record)) == 1 {
                    outcomes.append(.inserted(record))
                    continue
                }
                let stored = try connection.query(
                    SQLiteQueries.recordByKey, [.text(record.imageKey)], row: Self.record(from:))
                guard let stored = stored.first else {
                    throw .corrupt("insert of image key \(record.imageKey) conflicted but no record has it")
                }
                outcomes.append(.alreadyStored(stored, inserting: record))
            }
            return outcomes
        }
    }

    /// The owner's record with `id`.
    public func record(id: String, ownerId: String) throws(RecordsError) -> ImageRecord? {
        try read { (connection) throws(RecordsError) in
            try connection.query(
                SQLiteQueries.recordByIdAndOwner, [.text(id), .text(ownerId)], row: Self.record(from:)
            )
            .first
        }
    }

    /// The record confirmed with `imageKey`.
    public func record(imageKey: String) throws(RecordsError) -> ImageRecord? {
        try read { (connection) throws(RecordsError) in
            try connection.query(SQLiteQueries.recordByKey, [.text(imageKey)], row: Self.record(from:)).first
        }
    }

    /// One newest-first page of the owner's records.
    public func listRecords(ownerId: String, type: String?, limit: Int, after: RecordCursor?) throws(RecordsError)
        -> (records: [ImageRecord], next: RecordCursor?)
    {
        try RecordStoreLimits.checkListLimit(limit)
        let (sql, values) = ListQuery.build(
            columns: Schema.recordColumns, ownerId: ownerId, type: type, limit: limit, after: after,
            placeholder: { "?\($0)" })
        let rows = try read { (connection) throws(RecordsError) in
            try connection.query(sql, values, row: Self.record(from:))
        }
        return ListQuery.page(rows: rows, limit: limit)
    }

    /// Deletes the owner's record with `id` and returns it, with the outbox events `events` makes of it.
    public func deleteRecord(id: String, ownerId: String, events: (ImageRecord) -> [OutboxEvent])
        throws(RecordsError) -> ImageRecord?
    {
        try write { (connection) throws(RecordsError) in
            let deleted = try connection.query(
                SQLiteQueries.deleteRecord, [.text(id), .text(ownerId)], row: Self.record(from:)
            ).first
            if let deleted { try appendOutbox(events(deleted), connection) }
            return deleted
        }
    }

    /// Runs `body` in a write transaction on the writer connection and counts the commit.
    func write<R>(durable: Bool = true, _ body: (SQLiteConnection) throws(RecordsError) -> R)
        throws(RecordsError) -> R
    {
        try writer.withConnection { (connection) throws(RecordsError) -> R in
            try transaction(connection, durable: durable) { () throws(RecordsError) -> R in try body(connection) }
        }
    }

    /// Runs `body` in a transaction on `connection` (the writer, held by the caller) and counts the commit.
    func transaction<R>(_ connection: SQLiteConnection, durable: Bool, _ body: () throws(RecordsError) -> R)
        throws(RecordsError) -> R
    {
        // Intents need no fsync before the answer (reliability.md: losing the last few on a crash only
        // means a new URL): their commits run with synchronous=NORMAL, which in WAL mode skips the
        // fsync; the next durable commit (a record) syncs the WAL, theirs included. Every transaction
        // sets the mode it needs before it begins, so the connection stays in the last one used.
        try connection.setSynchronous(full: durable)
        let result = try connection.transaction(body)
        commits.add(1, ordering: .relaxed)
        return result
    }

    /// Runs `body` on a read-only connection.
    func read<R>(_ body: (SQLiteConnection) throws(RecordsError) -> R) throws(RecordsError) -> R {
        try readers.withConnection(body)
    }

    /// Runs `body` on the writer connection outside a transaction (for checks that must see everything).
    private func readWriter<R>(_ body: (SQLiteConnection) throws(RecordsError) -> R) throws(RecordsError) -> R {
        try writer.withConnection(body)
    }

    /// An intent from a row in `Schema.intentColumns` order.
    static func intent(from row: SQLiteStatement) -> UploadIntent {
        UploadIntent(
            ownerId: row.text(1), imageKey: row.text(0), objectKey: row.text(2), permanentKey: row.optionalText(3),
            type: row.text(4), contentType: row.optionalText(5),
            allowedContentTypes: AllowedContentTypes.decode(row.text(6)), maxBytes: row.int64(7),
            createdAtMs: row.int64(8), expiresAtMs: row.int64(9), metadataJSON: row.optionalText(10),
            declaredSize: row.optionalInt64(11), checksumSHA256: row.optionalText(12), contentMD5: row.optionalText(13))
    }

    /// A record from a row in `Schema.recordColumns` order.
    static func record(from row: SQLiteStatement) throws(RecordsError) -> ImageRecord {
        ImageRecord(
            id: row.text(0), ownerId: row.text(1), imageKey: row.text(2), objectKey: row.text(3), type: row.text(4),
            contentType: row.text(5), size: row.int64(6), etag: row.text(7), metadataJSON: row.text(8),
            createdAtMs: row.int64(9), detectedType: row.optionalText(10), width: row.optionalInt64(11),
            height: row.optionalInt64(12), sha256: row.optionalText(13), state: try RecordState.stored(row.text(14)),
            rejectionReason: row.optionalText(15), rejectionDetail: row.optionalText(16),
            publishKey: row.optionalText(17))
    }

    /// Creates the directories above `path` that are missing (like `mkdir -p`).
    private static func createParentDirectory(of path: String) throws(RecordsError) {
        guard let slash = path.lastIndex(of: "/") else { return }
        let directory = String(path[..<slash])
        var current = directory.hasPrefix("/") ? "/" : ""
        for component in directory.split(separator: "/") {
            if !current.isEmpty && current != "/" { current += "/" }
            current += component
            guard component != "." && component != ".." else { continue }
            if mkdir(current, 0o755) != 0 && errno != EEXIST {
                throw .unavailable("cannot create directory \(current): \(String(cString: strerror(errno)))")
            }
        }
    }
}
