import Config

/// Opens the store a location names.
public enum RecordStoreFactory {
    /// Opens `location`: the embedded SQLite store or PostgreSQL.
    ///
    /// `poolSize` bounds the connections (SQLite: read connections beside the one writer); `busyTimeoutMs`
    /// is SQLite's busy timeout and, rounded up to seconds (at least 2), PostgreSQL's connect timeout.
    /// The schema is not touched: call `migrate()` next. Errors never contain a password.
    /// `intentIndexCapacity` bounds SQLite's in-memory intent index (see `SQLiteRecordStore`).
    /// `postgresStatements` is how PostgreSQL's statements are sent (`.unnamed` behind a transaction-mode
    /// pooler).
    public static func open(
        location: RecordsLocation, poolSize: Int, busyTimeoutMs: Int, intentIndexCapacity: Int = 1_000_000,
        postgresStatements: PostgresStatements = .named
    ) throws(RecordsError) -> any LifecycleStore {
        switch location {
        case .postgres(let url):
            return try PostgresRecordStore(
                url: url, poolSize: poolSize, connectTimeoutMs: busyTimeoutMs, statements: postgresStatements)
        case .sqlite(let path):
            return try SQLiteRecordStore(
                path: path, readers: poolSize, busyTimeoutMs: busyTimeoutMs, intentIndexCapacity: intentIndexCapacity)
        }
    }

    /// Opens the store `url` names (`sqlite:<path>`, `postgres://…`), parsed by `RecordsLocation(parsing:)`,
    /// for tests and benchmarks that name stores by text; a URL it refuses is `.invalidURL`.
    public static func open(
        url: String, poolSize: Int, busyTimeoutMs: Int, intentIndexCapacity: Int = 1_000_000,
        postgresStatements: PostgresStatements = .named
    ) throws(RecordsError) -> any LifecycleStore {
        let location: RecordsLocation
        do {
            location = try RecordsLocation(parsing: url)
        } catch {
            throw .invalidURL(error.problems.map(\.message).joined(separator: "; "))
        }
        return try open(
            location: location, poolSize: poolSize, busyTimeoutMs: busyTimeoutMs,
            intentIndexCapacity: intentIndexCapacity, postgresStatements: postgresStatements)
    }
}
