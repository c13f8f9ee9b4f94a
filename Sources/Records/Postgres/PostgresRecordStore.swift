import CPostgres
import Synchronization

/// The store for deployments with several server instances: PostgreSQL through libpq.
///
/// A pool of up to `poolSize` connections, opened on demand; statements are parameterised (prepared once
/// per connection where their text is fixed); `synchronous_commit` is left on, so a returned write is
/// durable. A call that fails because its connection broke (server restart, terminated backend) is
/// retried once on a new connection; writes are idempotent by key, so a retried insert whose first commit
/// did land reports `.existing` of itself.
public final class PostgresRecordStore: RecordStore {
    /// The server, for messages (its password is never shown).
    let address: PostgresAddress
    /// The connections.
    private let pool: ConnectionPool<PostgresConnection>
    /// Write transactions committed.
    let commits = Atomic<Int>(0)
    /// Intents stored by `COPY` (fresh keys), for tests and metrics.
    let copied = Atomic<Int>(0)

    /// A store for `address` with at most `poolSize` connections, once libpq has accepted its URL; no
    /// connection is opened until the first call.
    /// `statements` `.unnamed` for a transaction-mode pooler (PgBouncer before 1.21).
    public init(
        address: PostgresAddress, poolSize: Int, connectTimeoutMs: Int, statements: PostgresStatements = .named
    ) throws(RecordsError) {
        try address.checkWithLibpq()
        let timeoutSeconds = max(2, (connectTimeoutMs + 999) / 1000)
        self.address = address
        pool = ConnectionPool(
            maxSize: max(1, poolSize),
            connect: { () throws(RecordsError) -> PostgresConnection in
                try PostgresConnection(address: address, connectTimeoutSeconds: timeoutSeconds, statements: statements)
            },
            isBroken: { $0.isBroken })
    }

    /// The URL with its password redacted.
    public var redactedURL: String { address.redacted }

    /// Two intent transactions in flight (docs/records.md, "PostgreSQL's write path"): a commit waits for
    /// round trips and the WAL flush, while the other lane's proceeds on a second connection; the rest
    /// of the pool stays free for confirmations and the janitor.
    public var intentWriteLanes: Int { pool.maxSize >= 4 ? 2 : 1 }

    /// Write transactions committed so far.
    public var committedTransactions: Int { commits.load(ordering: .relaxed) }

    /// Intents stored by `COPY` so far (their keys were fresh, `UploadIntent.freshKey`).
    public var copiedIntents: Int { copied.load(ordering: .relaxed) }

    /// Applies the missing migrations in one transaction, under an advisory lock so that instances starting
    /// together migrate one after another.
    public func migrate() throws(RecordsError) {
        try run { (connection) throws(RecordsError) in
            try connection.transaction { () throws(RecordsError) in
                try connection.execute("SELECT pg_advisory_xact_lock($1)", [.int(PostgresQueries.migrationLockKey)])
                try connection.execute(PostgresSchema.versionTable)
                let current = try connection.execute("SELECT COALESCE(MAX(version), 0) FROM schema_version")
                let version = Int(try current.int64(0, 0))
                guard version <= Schema.latestVersion else {
                    throw .unavailable(
                        "schema version \(version) is newer than this build knows (\(Schema.latestVersion))")
                }
                let rows = try connection.execute("SELECT version FROM schema_version")
                var applied = Set<Int>()
                for row in 0..<rows.rowCount { applied.insert(Int(try rows.int64(row, 0))) }
                for migration in Schema.missingMigrations(applied: applied) {
                    for statement in migration.postgres { try connection.execute(statement) }
                    try connection.execute(
                        "INSERT INTO schema_version (version) VALUES ($1)", [.int(Int64(migration.version))])
                }
            }
        }
        commits.add(1, ordering: .relaxed)
    }

    /// The version recorded in `schema_version` (0 before the first migration).
    public func schemaVersion() throws(RecordsError) -> Int {
        try run { (connection) throws(RecordsError) in
            let exists = try connection.execute("SELECT to_regclass('schema_version') IS NOT NULL")
            guard exists.text(0, 0) == "t" else { return 0 }
            return Int(try connection.execute("SELECT COALESCE(MAX(version), 0) FROM schema_version").int64(0, 0))
        }
    }

    /// Runs `SELECT 1`.
    public func ping() throws(RecordsError) {
        try run { (connection) throws(RecordsError) in _ = try connection.executePrepared("SELECT 1", []) }
    }

    /// Stores intents in one transaction: those with a fresh key (`UploadIntent.freshKey`) copied in
    /// (`COPY`: no planner, no array parsing, no conflict check), the others upserted (skipping keys
    /// that have a record). When the copy meets a taken key, or an intent the server refuses, the whole
    /// batch goes through the upsert instead, which stores it or refuses it as it always did.
    public func putIntents(_ intents: [UploadIntent]) throws(RecordsError) {
        let unique = Self.lastOfEachKey(intents)
        guard !unique.isEmpty else { return }
        if unique.contains(where: \.freshKey) {
            do throws(RecordsError) {
                let rows = try Self.copyRows(unique.filter(\.freshKey))
                let others = try Self.upsertValues(unique.filter { !$0.freshKey })
                _ = try run { (connection) throws(RecordsError) in
                    guard let others else { return try connection.copyIn(PostgresQueries.copyIntents, rows.bytes) }
                    return try connection.transaction { () throws(RecordsError) in
                        try connection.executePrepared(PostgresQueries.upsertIntents, others)
                        return try connection.copyIn(PostgresQueries.copyIntents, rows.bytes)
                    }
                }
                copied.add(rows.rowCount, ordering: .relaxed)
                commits.add(1, ordering: .relaxed)
                return
            } catch .constraint {
                // A "fresh" key that was taken (a UUID source that repeats) or a field the server
                // refused: the upsert below decides, as for any other batch.
            }
        }
        guard let values = try Self.upsertValues(unique) else { return }
        _ = try run { (connection) throws(RecordsError) in
            try connection.executePrepared(PostgresQueries.upsertIntents, values)
        }
        commits.add(1, ordering: .relaxed)
    }

    /// The last intent of each key, in order (one statement may not touch a row twice).
    static func lastOfEachKey(_ intents: [UploadIntent]) -> [UploadIntent] {
        var lastIndex: [String: Int] = [:]
        lastIndex.reserveCapacity(intents.count)
        for (index, intent) in intents.enumerated() { lastIndex[intent.imageKey] = index }
        guard lastIndex.count < intents.count else { return intents }
        return intents.enumerated().filter { lastIndex[$0.element.imageKey] == $0.offset }.map(\.element)
    }

    /// The rows of `PostgresQueries.copyIntents` for `intents`, in `Schema.intentColumns` order.
    static func copyRows(_ intents: [UploadIntent]) throws(RecordsError) -> PostgresCopyRows {
        var rows = PostgresCopyRows(capacity: intents.count * 200)
        for intent in intents {
            try rows.append(intent.imageKey)
            try rows.append(intent.ownerId)
            try rows.append(intent.objectKey)
            try rows.append(intent.permanentKey)
            try rows.append(intent.type)
            try rows.append(intent.contentType)
            try rows.append(AllowedContentTypes.encode(intent.allowedContentTypes))
            rows.append(intent.maxBytes)
            rows.append(intent.createdAtMs)
            rows.append(intent.expiresAtMs)
            try rows.append(intent.metadataJSON)
            rows.append(optional: intent.declaredSize)
            try rows.append(intent.checksumSHA256)
            try rows.append(intent.contentMD5)
            rows.endRow()
        }
        return rows
    }

    /// The parameters of `PostgresQueries.upsertIntents` for `unique` (intents of distinct keys), or
    /// nil when there are none.
    static func upsertValues(_ unique: [UploadIntent]) throws(RecordsError) -> [SQLValue]? {
        guard !unique.isEmpty else { return nil }
        // One array per column, one statement, one round trip (docs/records.md, "PostgreSQL's write path").
        var columns = (0..<14).map { _ in PostgresArray(capacity: unique.count * 40) }
        for intent in unique {
            try columns[0].append(intent.imageKey)
            try columns[1].append(intent.ownerId)
            try columns[2].append(intent.objectKey)
            try columns[3].append(intent.permanentKey)
            try columns[4].append(intent.type)
            try columns[5].append(intent.contentType)
            try columns[6].append(AllowedContentTypes.encode(intent.allowedContentTypes))
            columns[7].append(intent.maxBytes)
            columns[8].append(intent.createdAtMs)
            columns[9].append(intent.expiresAtMs)
            try columns[10].append(intent.metadataJSON)
            columns[11].append(optional: intent.declaredSize)
            try columns[12].append(intent.checksumSHA256)
            try columns[13].append(intent.contentMD5)
        }
        return columns.map { SQLValue.text($0.literal) }
    }

    /// The intent for `imageKey`.
    public func intent(imageKey: String) throws(RecordsError) -> UploadIntent? {
        try run { (connection) throws(RecordsError) in
            let result = try connection.executePrepared(PostgresQueries.intentByKey, [.text(imageKey)])
            return result.rowCount == 0 ? nil : try Self.intent(result, 0)
        }
    }

    /// Inserts records in one transaction (one statement when they fit in one); a taken key gives `.existing`.
    public func insertRecords(_ records: [ImageRecord]) throws(RecordsError) -> [InsertOutcome] {
        guard !records.isEmpty else { return [] }
        var firstIndex: [String: Int] = [:]
        for (index, record) in records.enumerated() where firstIndex[record.imageKey] == nil {
            firstIndex[record.imageKey] = index
        }
        let unique = records.enumerated().filter { firstIndex[$0.element.imageKey] == $0.offset }.map(\.element)
        let (inserted, stored) = try run { (connection) throws(RecordsError) in
            try Self.insert(unique, on: connection)
        }
        commits.add(1, ordering: .relaxed)
        var outcomes: [InsertOutcome] = []
        outcomes.reserveCapacity(records.count)
        for (index, record) in records.enumerated() {
            if firstIndex[record.imageKey] == index && inserted.contains(record.imageKey) {
                outcomes.append(.inserted(record))
            } else if inserted.contains(record.imageKey) {
                outcomes.append(.existing(records[firstIndex[record.imageKey]!]))
            } else if let existing = stored[record.imageKey] {
                outcomes.append(.alreadyStored(existing, inserting: record))
            } else {
                throw .unavailable("the record for image key \(record.imageKey) vanished while it was being inserted")
            }
        }
        return outcomes
    }

    /// Inserts `records` (unique keys) and reads the stored records of the keys that were taken.
    private static func insert(_ records: [ImageRecord], on connection: PostgresConnection) throws(RecordsError)
        -> (inserted: Set<String>, stored: [String: ImageRecord])
    {
        var inserted = Set<String>()
        let chunks = stride(from: 0, to: records.count, by: PostgresQueries.rowsPerStatement).map {
            records[$0..<min($0 + PostgresQueries.rowsPerStatement, records.count)]
        }
        try inOneTransaction(connection, statements: chunks.count) { () throws(RecordsError) in
            for chunk in chunks {
                let values = chunk.flatMap(Schema.values(of:))
                let result = try connection.execute(PostgresQueries.insertRecords(rows: chunk.count), values)
                for row in 0..<result.rowCount { inserted.insert(result.text(row, 0)) }
            }
        }
        let taken = records.map(\.imageKey).filter { !inserted.contains($0) }
        var stored: [String: ImageRecord] = [:]
        for start in stride(from: 0, to: taken.count, by: PostgresQueries.rowsPerStatement) {
            let keys = taken[start..<min(start + PostgresQueries.rowsPerStatement, taken.count)]
            let result = try connection.execute(
                PostgresQueries.recordsByKeys(count: keys.count), keys.map { .text($0) })
            for row in 0..<result.rowCount {
                let record = try record(result, row)
                stored[record.imageKey] = record
            }
        }
        return (inserted, stored)
    }

    /// The owner's record with `id`.
    public func record(id: String, ownerId: String) throws(RecordsError) -> ImageRecord? {
        try run { (connection) throws(RecordsError) in
            let result = try connection.executePrepared(
                PostgresQueries.recordByIdAndOwner, [.text(id), .text(ownerId)])
            return result.rowCount == 0 ? nil : try Self.record(result, 0)
        }
    }

    /// The record confirmed with `imageKey`.
    public func record(imageKey: String) throws(RecordsError) -> ImageRecord? {
        try run { (connection) throws(RecordsError) in
            let result = try connection.executePrepared(PostgresQueries.recordByKey, [.text(imageKey)])
            return result.rowCount == 0 ? nil : try Self.record(result, 0)
        }
    }

    /// One newest-first page of the owner's records.
    public func listRecords(ownerId: String, type: String?, limit: Int, after: RecordCursor?) throws(RecordsError)
        -> (records: [ImageRecord], next: RecordCursor?)
    {
        try RecordStoreLimits.checkListLimit(limit)
        let (sql, values) = ListQuery.build(
            columns: Schema.recordColumns, ownerId: ownerId, type: type, limit: limit, after: after,
            placeholder: { "$\($0)" })
        let rows = try run { (connection) throws(RecordsError) in
            let result = try connection.executePrepared(sql, values)
            return try (0..<result.rowCount).map { (row) throws(RecordsError) in try Self.record(result, row) }
        }
        return ListQuery.page(rows: rows, limit: limit)
    }

    /// Deletes the owner's record with `id` and returns it, with the outbox events `events` makes of it (in
    /// one transaction with the delete when there are some).
    public func deleteRecord(id: String, ownerId: String, events: (ImageRecord) -> [OutboxEvent])
        throws(RecordsError) -> ImageRecord?
    {
        let deleted = try run { (connection) throws(RecordsError) -> ImageRecord? in
            try connection.transaction { () throws(RecordsError) -> ImageRecord? in
                let result = try connection.executePrepared(PostgresQueries.deleteRecord, [.text(id), .text(ownerId)])
                guard result.rowCount > 0 else { return nil }
                let deleted = try Self.record(result, 0)
                try Self.appendOutbox(events(deleted), connection)
                return deleted
            }
        }
        commits.add(1, ordering: .relaxed)
        return deleted
    }

    /// Expired, unconfirmed intents, soonest-expired first.
    public func expiredIntents(nowMs: Int64, limit: Int) throws(RecordsError) -> [UploadIntent] {
        try RecordStoreLimits.checkBatchLimit(limit)
        return try run { (connection) throws(RecordsError) in
            let result = try connection.executePrepared(
                PostgresQueries.expiredIntents, [.int(nowMs), .int(Int64(limit))])
            return try (0..<result.rowCount).map { (row) throws(RecordsError) in try Self.intent(result, row) }
        }
    }

    /// Deletes intents by key in one transaction (one statement when they fit in one).
    public func deleteIntents(imageKeys: [String]) throws(RecordsError) {
        let keys = Array(Set(imageKeys))
        guard !keys.isEmpty else { return }
        let chunks = stride(from: 0, to: keys.count, by: PostgresQueries.rowsPerStatement).map {
            Array(keys[$0..<min($0 + PostgresQueries.rowsPerStatement, keys.count)])
        }
        try run { (connection) throws(RecordsError) in
            try Self.inOneTransaction(connection, statements: chunks.count) { () throws(RecordsError) in
                for chunk in chunks {
                    try connection.execute(PostgresQueries.deleteIntents(count: chunk.count), chunk.map { .text($0) })
                }
            }
        }
        commits.add(1, ordering: .relaxed)
    }

    /// Runs `body` on a pooled connection; once more on a fresh one if the connection broke.
    func run<R>(_ body: (PostgresConnection) throws(RecordsError) -> R) throws(RecordsError) -> R {
        var attempt = 0
        while true {
            var broken = false
            do throws(RecordsError) {
                return try pool.withConnection { (connection) throws(RecordsError) -> R in
                    do throws(RecordsError) {
                        return try body(connection)
                    } catch {
                        broken = connection.isBroken
                        throw error
                    }
                }
            } catch {
                attempt += 1
                guard broken && attempt < 2 else { throw error }
            }
        }
    }

    /// Runs `body` alone when it sends one statement (PostgreSQL commits each statement on its own), or
    /// inside BEGIN ... COMMIT when it sends several.
    private static func inOneTransaction(
        _ connection: PostgresConnection, statements: Int, _ body: () throws(RecordsError) -> Void
    ) throws(RecordsError) {
        if statements <= 1 { try body() } else { try connection.transaction(body) }
    }

    /// An intent from row `row` in `Schema.intentColumns` order.
    static func intent(_ result: PostgresResult, _ row: Int) throws(RecordsError) -> UploadIntent {
        UploadIntent(
            ownerId: result.text(row, 1), imageKey: result.text(row, 0), objectKey: result.text(row, 2),
            permanentKey: result.optionalText(row, 3), type: result.text(row, 4),
            contentType: result.optionalText(row, 5),
            allowedContentTypes: AllowedContentTypes.decode(result.text(row, 6)),
            maxBytes: try result.int64(row, 7), createdAtMs: try result.int64(row, 8),
            expiresAtMs: try result.int64(row, 9), metadataJSON: result.optionalText(row, 10),
            declaredSize: try result.optionalInt64(row, 11), checksumSHA256: result.optionalText(row, 12),
            contentMD5: result.optionalText(row, 13))
    }

    /// A record from row `row` in `Schema.recordColumns` order.
    static func record(_ result: PostgresResult, _ row: Int) throws(RecordsError) -> ImageRecord {
        ImageRecord(
            id: result.text(row, 0), ownerId: result.text(row, 1), imageKey: result.text(row, 2),
            objectKey: result.text(row, 3), type: result.text(row, 4), contentType: result.text(row, 5),
            size: try result.int64(row, 6), etag: result.text(row, 7), metadataJSON: result.text(row, 8),
            createdAtMs: try result.int64(row, 9), detectedType: result.optionalText(row, 10),
            width: try result.optionalInt64(row, 11), height: try result.optionalInt64(row, 12),
            sha256: result.optionalText(row, 13), state: try RecordState.stored(result.text(row, 14)),
            rejectionReason: result.optionalText(row, 15), rejectionDetail: result.optionalText(row, 16),
            publishKey: result.optionalText(row, 17))
    }
}
