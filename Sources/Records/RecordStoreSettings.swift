/// How to open a store: where it lives and its connections (the App maps Config's `records` section to it).
public struct RecordStoreSettings: Sendable {
    /// Where the data lives.
    public var location: StoreLocation
    /// The most connections (SQLite: read connections beside the one writer).
    public var poolSize: Int
    /// SQLite's busy timeout and, rounded up to seconds (at least 2), PostgreSQL's connect timeout, in
    /// milliseconds.
    public var busyTimeoutMs: Int
    /// How PostgreSQL's fixed statements are sent (`.unnamed` behind a transaction-mode pooler).
    public var postgresStatements: PostgresStatements

    /// Settings from their values.
    public init(
        location: StoreLocation, poolSize: Int, busyTimeoutMs: Int, postgresStatements: PostgresStatements = .named
    ) {
        self.location = location
        self.poolSize = poolSize
        self.busyTimeoutMs = busyTimeoutMs
        self.postgresStatements = postgresStatements
    }
}
