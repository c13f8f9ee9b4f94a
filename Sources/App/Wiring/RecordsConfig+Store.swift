import Config
import Records

extension RecordsConfig {
    /// The `records` section as the store opens it: `records.url` (its password kept out of every
    /// message), `records.poolSize`, `records.busyTimeoutMs` and `records.postgresStatements`.
    var storeSettings: RecordStoreSettings {
        RecordStoreSettings(
            location: StoreLocation(location), poolSize: poolSize, busyTimeoutMs: busyTimeoutMs,
            postgresStatements: postgresStatements == .unnamed ? .unnamed : .named)
    }
}

extension StoreLocation {
    /// The store location of Config's `records.url`.
    init(_ location: RecordsLocation) {
        switch location {
        case .sqlite(let path): self = .sqlite(path: path)
        case .postgres(let url):
            self = .postgres(
                PostgresAddress(
                    connectionString: url.connectionString, redacted: url.redacted, passwords: url.passwords))
        }
    }
}
