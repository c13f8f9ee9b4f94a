import Config
import Records

extension RecordStoreFactory {
    /// Opens the store `url` names (`sqlite:<path>`, `postgres://…`), parsed as Config parses
    /// `records.url`: for tests and tools that name stores by text. A URL Config refuses is `.invalidURL`
    /// (its message without the password).
    public static func open(
        url: String, poolSize: Int, busyTimeoutMs: Int, postgresStatements: PostgresStatements = .named
    ) throws(RecordsError) -> any LifecycleStore {
        try open(
            RecordStoreSettings(
                location: try StoreLocation(url: url), poolSize: poolSize, busyTimeoutMs: busyTimeoutMs,
                postgresStatements: postgresStatements))
    }
}

extension StoreLocation {
    /// The location `url` names, parsed by Config's `RecordsLocation(parsing:)`; `.invalidURL` otherwise.
    public init(url: String) throws(RecordsError) {
        let parsed: RecordsLocation
        do {
            parsed = try RecordsLocation(parsing: url)
        } catch {
            throw .invalidURL(error.problems.map(\.message).joined(separator: "; "))
        }
        switch parsed {
        case .sqlite(let path): self = .sqlite(path: path)
        case .postgres(let postgres): self = .postgres(PostgresAddress(postgres))
        }
    }
}

extension PostgresAddress {
    /// The address of a PostgreSQL URL Config parsed, its password kept out of every message.
    public init(_ url: PostgresURL) {
        self.init(connectionString: url.connectionString, redacted: url.redacted, passwords: url.passwords)
    }

    /// The address of the PostgreSQL URL `url` (Config's `PostgresURL` rules); `.invalidURL` otherwise.
    public init(url: String) throws(RecordsError) {
        do {
            self.init(try PostgresURL(url))
        } catch {
            throw .invalidURL(error.problems.map(\.message).joined(separator: "; "))
        }
    }
}
