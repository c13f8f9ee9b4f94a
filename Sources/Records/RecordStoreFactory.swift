/// Opens the store a URL names.
public enum RecordStoreFactory {
    /// Opens `url`: `sqlite:<path>` (also `sqlite:///<absolute path>`) for the embedded store,
    /// `postgres://...` or `postgresql://...` for PostgreSQL.
    ///
    /// `poolSize` bounds the connections (SQLite: read connections beside the one writer); `busyTimeoutMs`
    /// is SQLite's busy timeout and, rounded up to seconds (at least 2), PostgreSQL's connect timeout.
    /// The schema is not touched: call `migrate()` next. Errors never contain a password.
    /// `intentIndexCapacity` bounds SQLite's in-memory intent index (see `SQLiteRecordStore`).
    /// `postgresStatements` is how PostgreSQL's statements are sent (`.unnamed` behind a transaction-mode
    /// pooler).
    public static func open(
        url: String, poolSize: Int, busyTimeoutMs: Int, intentIndexCapacity: Int = 1_000_000,
        postgresStatements: PostgresStatements = .named
    ) throws(RecordsError) -> any LifecycleStore {
        if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") {
            return try PostgresRecordStore(
                url: url, poolSize: poolSize, connectTimeoutMs: busyTimeoutMs, statements: postgresStatements)
        }
        if url.hasPrefix("sqlite:") {
            var path = String(url.dropFirst("sqlite:".count))
            if path.hasPrefix("///") { path.removeFirst(2) }
            guard !path.isEmpty, !path.hasSuffix("/") else {
                throw .invalidURL("sqlite: URL without a file path; use sqlite:/path/to/file.db")
            }
            return try SQLiteRecordStore(
                path: path, readers: poolSize, busyTimeoutMs: busyTimeoutMs, intentIndexCapacity: intentIndexCapacity)
        }
        // Show the scheme only when there is one: a URL without a colon may be a secret pasted by mistake.
        let scheme = url.contains(":") ? String(url.prefix { $0 != ":" }) : ""
        let plausible =
            !scheme.isEmpty && scheme.count <= 16 && scheme.allSatisfy { $0.isLetter || $0.isNumber || $0 == "+" }
        throw .invalidURL(
            "unknown store URL scheme '\(plausible ? scheme : "?")'; use sqlite:<path> or postgres://user@host:port/db")
    }
}
