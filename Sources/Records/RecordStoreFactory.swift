/// Opens the store a URL names.
public enum RecordStoreFactory {
    /// Opens `url`: `sqlite:<path>` (also `sqlite:///<absolute path>`) for the embedded store,
    /// `postgres://...` or `postgresql://...` for PostgreSQL.
    ///
    /// `poolSize` bounds the connections (SQLite: read connections beside the one writer); `busyTimeoutMs`
    /// is SQLite's busy timeout and, rounded up to seconds (at least 2), PostgreSQL's connect timeout.
    /// The schema is not touched: call `migrate()` next. Errors never contain a password.
    public static func open(url: String, poolSize: Int, busyTimeoutMs: Int) throws(RecordsError) -> any RecordStore {
        if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") {
            return try PostgresRecordStore(url: url, poolSize: poolSize, connectTimeoutMs: busyTimeoutMs)
        }
        if url.hasPrefix("sqlite:") {
            var path = String(url.dropFirst("sqlite:".count))
            if path.hasPrefix("///") { path.removeFirst(2) }
            guard !path.isEmpty else { throw .invalidURL("sqlite: URL without a path; use sqlite:/path/to/file.db") }
            return try SQLiteRecordStore(path: path, readers: poolSize, busyTimeoutMs: busyTimeoutMs)
        }
        let scheme = url.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
        let shown = scheme.count <= 16 && scheme.allSatisfy { $0.isLetter || $0.isNumber || $0 == "+" } ? scheme : "?"
        throw .invalidURL("unknown store URL scheme '\(shown)'; use sqlite:<path> or postgres://user@host:port/db")
    }
}
