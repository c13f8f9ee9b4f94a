/// Where a store's data lives, as `RecordStoreFactory` takes it (the App maps Config's `records.url`
/// to it). `description` and reflection never show a password.
public enum StoreLocation: Sendable, CustomStringConvertible {
    /// The embedded SQLite store in the file at `path`.
    case sqlite(path: String)
    /// A PostgreSQL server.
    case postgres(PostgresAddress)

    /// The location in `records.url` form, its password redacted.
    public var description: String {
        switch self {
        case .sqlite(let path): return "sqlite:" + path
        case .postgres(let address): return address.redacted
        }
    }
}
