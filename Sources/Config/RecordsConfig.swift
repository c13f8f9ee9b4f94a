/// The `records` section: the database of intents and records, and its background work.
///
/// `location` may carry a password, so `description` and reflection (`dump`) show it redacted.
public struct RecordsConfig: Sendable, Equatable {
    /// Where the records live (`records.url`: `sqlite:<path>` or `postgres://…` / `postgresql://…`).
    public var location: RecordsLocation
    /// Most intents written in one batch.
    public var intentBatchSize: Int
    /// Most confirmations grouped into one durable commit.
    public var groupCommitMaxBatch: Int
    /// Database connections (PostgreSQL) or reader handles (SQLite).
    public var poolSize: Int
    /// Period of the janitor that expires old intents, in milliseconds.
    public var janitorIntervalMs: Int
    /// Most intents the janitor handles per pass.
    public var janitorBatchSize: Int
    /// Whether the janitor deletes objects uploaded but never confirmed.
    public var deleteUnconfirmedObjects: Bool
    /// SQLite busy timeout, in milliseconds.
    public var busyTimeoutMs: Int
    /// Most intents waiting for their commit at once (the most issue requests parked for it); beyond,
    /// issuing answers 503 at once.
    public var intentQueueLimit: Int
    /// Longest an issue request waits for its intent's commit, in milliseconds; then 503 with
    /// `Retry-After` and no URL.
    public var intentCommitTimeoutMs: Int
    /// How many intent transactions are in flight at once (`IntentWriter`'s lanes); 0: the store's
    /// choice (1 on SQLite, 2 on PostgreSQL with a pool of at least 4).
    public var intentWriterLanes: Int = 0
    /// How long a claim on an intent holds (a confirmation, the janitor, a store event): longer than the
    /// slowest step its holder takes (a copy of the largest object); after it, another claimant takes over.
    public var claimLeaseSeconds: Int = 60
    /// How long settled claims are kept: a confirmation of a key the janitor expired answers 410
    /// `INTENT_EXPIRED` until then, 404 after.
    public var claimRetentionSeconds: Int = 604_800
    /// How long the lease of the background work (the janitor's passes) lasts without renewal, in
    /// milliseconds: another instance takes the work over this long after its holder crashed.
    public var leaseTtlMs: Int = 30_000
    /// How long after its URL expired an unconfirmed intent is kept before the janitor removes it, in
    /// milliseconds (an upload that finished at the last second can still be confirmed meanwhile).
    public var janitorGraceMs: Int = 300_000
    /// How PostgreSQL's fixed statements are sent: prepared under a name once per connection, or unnamed
    /// with every call (behind a transaction-mode pooler such as PgBouncer 1.18).
    public var postgresStatements: PostgresStatementMode = .named

    /// How PostgreSQL's fixed statements are sent (`records.postgresStatements`).
    public enum PostgresStatementMode: String, Sendable, CaseIterable {
        /// Named prepared statements, prepared once per connection.
        case named
        /// Unnamed statements, parsed with every call (transaction-mode poolers).
        case unnamed
    }

    /// Records settings; every argument defaults to the documented default.
    public init(
        location: RecordsLocation = .defaultLocation, intentBatchSize: Int = 256, groupCommitMaxBatch: Int = 256,
        poolSize: Int = 8, janitorIntervalMs: Int = 60000, janitorBatchSize: Int = 500,
        deleteUnconfirmedObjects: Bool = false, busyTimeoutMs: Int = 5000, intentQueueLimit: Int = 100_000,
        intentCommitTimeoutMs: Int = 2_000
    ) {
        self.intentQueueLimit = intentQueueLimit
        self.intentCommitTimeoutMs = intentCommitTimeoutMs
        self.location = location
        self.intentBatchSize = intentBatchSize
        self.groupCommitMaxBatch = groupCommitMaxBatch
        self.poolSize = poolSize
        self.janitorIntervalMs = janitorIntervalMs
        self.janitorBatchSize = janitorBatchSize
        self.deleteUnconfirmedObjects = deleteUnconfirmedObjects
        self.busyTimeoutMs = busyTimeoutMs
    }
}
