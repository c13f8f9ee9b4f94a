/// Opens the store a location names.
public enum RecordStoreFactory {
    /// Opens the store `settings` name: the embedded SQLite store or PostgreSQL. The schema is not touched:
    /// call `migrate()` next. Errors never contain a password.
    public static func open(_ settings: RecordStoreSettings) throws(RecordsError) -> any LifecycleStore {
        switch settings.location {
        case .postgres(let address):
            return try PostgresRecordStore(
                address: address, poolSize: settings.poolSize, connectTimeoutMs: settings.busyTimeoutMs,
                statements: settings.postgresStatements)
        case .sqlite(let path):
            return try SQLiteRecordStore(path: path, readers: settings.poolSize, busyTimeoutMs: settings.busyTimeoutMs)
        }
    }
}
