/// The SQLite dialect of the schema: its version table and each version's statements, oldest first
/// (`Schema.migrations` pairs them with PostgreSQL's by version).
enum SQLiteSchema {
    /// The table of applied versions.
    static let versionTable = """
        CREATE TABLE IF NOT EXISTS schema_version (
            version INTEGER NOT NULL PRIMARY KEY,
            applied_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP
        )
        """

    /// Each version's statements, oldest first.
    static let steps: [(version: Int, statements: [String])] = [
        (
            1,
            [
                // A rowid table (rows are appended in issue order) looked up through an index on a 64-bit
                // hash of the key: inserting a random 70-byte text key into a text primary key cost about
                // twice as much per intent. Replaced by version 10's table.
                """
                CREATE TABLE intents (
                    key_hash INTEGER NOT NULL,
                    image_key TEXT NOT NULL,
                    owner_id TEXT NOT NULL,
                    object_key TEXT NOT NULL,
                    permanent_key TEXT,
                    type TEXT NOT NULL,
                    content_type TEXT,
                    allowed_content_types TEXT NOT NULL,
                    max_bytes INTEGER NOT NULL,
                    created_at_ms INTEGER NOT NULL,
                    expires_at_ms INTEGER NOT NULL
                )
                """,
                "CREATE INDEX intents_key_hash ON intents (key_hash)",
                "CREATE INDEX intents_expires_at ON intents (expires_at_ms)",
                """
                CREATE TABLE records (
                    id TEXT NOT NULL PRIMARY KEY,
                    owner_id TEXT NOT NULL,
                    image_key TEXT NOT NULL,
                    object_key TEXT NOT NULL,
                    type TEXT NOT NULL,
                    content_type TEXT NOT NULL,
                    size INTEGER NOT NULL,
                    etag TEXT NOT NULL,
                    metadata TEXT NOT NULL,
                    created_at_ms INTEGER NOT NULL
                )
                """,
                "CREATE UNIQUE INDEX records_image_key ON records (image_key)",
                "CREATE INDEX records_owner_created ON records (owner_id, created_at_ms DESC, id DESC)",
            ]
        ),
        (
            2,
            [
                // Intents appended one row per batch and found through an in-memory index (the layout
                // before version 10, which moves them out and drops this table): a per-intent index insert
                // at a random place cost the writer ~10 us per URL. AUTOINCREMENT kept ids from being reused.
                """
                CREATE TABLE intent_batches (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    next_expiry_ms INTEGER NOT NULL,
                    data BLOB NOT NULL
                )
                """
            ]
        ),
        (
            3,
            [
                // What the content check found in the object's first bytes (docs/content-check.md): NULL for
                // records of types with the check off, and for every record made before this version.
                "ALTER TABLE records ADD COLUMN detected_type TEXT",
                "ALTER TABLE records ADD COLUMN width INTEGER",
                "ALTER TABLE records ADD COLUMN height INTEGER",
            ]
        ),
        // Versions are looked up one by one (`missingMigrations`): a store that has 1, 2 and 4 still gets 3.
        (
            4,
            [
                // The owner's current record of each slot ("profile", "quest:12"): what a compatibility
                // route replaces. A slot whose record was deleted since is read as empty.
                """
                CREATE TABLE record_slots (
                    owner_id TEXT NOT NULL,
                    slot TEXT NOT NULL,
                    record_id TEXT NOT NULL,
                    PRIMARY KEY (owner_id, slot)
                )
                """,
                "CREATE INDEX record_slots_record ON record_slots (record_id)",
                // Objects of replaced records, queued in the transaction that replaced them and removed
                // once storage has deleted them: after a crash in between, what is left to delete.
                """
                CREATE TABLE object_deletions (
                    object_key TEXT NOT NULL PRIMARY KEY,
                    requested_at_ms INTEGER NOT NULL
                )
                """,
            ]
        ),
        (
            5,
            [
                // The metadata a record made from the intent keeps (Uppy's file metadata, given when a
                // multipart upload or a `/s3/params` URL is made): NULL for every other intent and for
                // those written before this version. Only the per-row table needs it: the batches'
                // layout (before version 10) carries it in place.
                "ALTER TABLE intents ADD COLUMN metadata TEXT"
            ]
        ),
        (
            7,
            [
                // Fenced claims on intents (ClaimStore): who settles an intent, and how it was settled. Its own
                // table, because SQLite kept most intents inside batch blobs before version 10.
                """
                CREATE TABLE intent_claims (
                    image_key TEXT NOT NULL PRIMARY KEY,
                    intent_created_at_ms INTEGER NOT NULL,
                    claimant TEXT NOT NULL,
                    token TEXT NOT NULL,
                    state TEXT NOT NULL,
                    lease_until_ms INTEGER NOT NULL,
                    claimed_at_ms INTEGER NOT NULL,
                    updated_at_ms INTEGER NOT NULL,
                    record_id TEXT,
                    reason TEXT
                )
                """,
                "CREATE INDEX intent_claims_updated ON intent_claims (updated_at_ms)",
                // The durable inbox of store events (EventInbox).
                """
                CREATE TABLE event_inbox (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    source TEXT NOT NULL,
                    body BLOB NOT NULL,
                    received_at_ms INTEGER NOT NULL,
                    attempts INTEGER NOT NULL,
                    state TEXT NOT NULL,
                    reason TEXT,
                    due_at_ms INTEGER NOT NULL,
                    lease_token TEXT,
                    finished_at_ms INTEGER
                )
                """,
                "CREATE INDEX event_inbox_due ON event_inbox (state, due_at_ms)",
                // The multipart uploads this server created (MultipartLedger).
                """
                CREATE TABLE multipart_uploads (
                    object_key TEXT NOT NULL,
                    upload_id TEXT NOT NULL,
                    image_key TEXT NOT NULL,
                    owner_id TEXT NOT NULL,
                    created_at_ms INTEGER NOT NULL,
                    parts TEXT,
                    completing_at_ms INTEGER,
                    PRIMARY KEY (object_key, upload_id)
                )
                """,
                "CREATE INDEX multipart_uploads_created ON multipart_uploads (created_at_ms)",
            ]
        ),
        (
            8,
            [
                // Background work runs under a lease (LeaseStore): one row per kind of work, its holder,
                // until when, and the fencing token that grows on every takeover.
                """
                CREATE TABLE leases (
                    name TEXT NOT NULL PRIMARY KEY,
                    holder TEXT NOT NULL,
                    token INTEGER NOT NULL,
                    expires_at_ms INTEGER NOT NULL,
                    acquired_at_ms INTEGER NOT NULL
                )
                """,
                // Shared rate limits (RateBucketStore): one token bucket per limit and key, and the instances
                // that synchronised lately (their count divides the buckets between them).
                """
                CREATE TABLE rate_buckets (
                    key TEXT NOT NULL PRIMARY KEY,
                    tokens REAL NOT NULL,
                    updated_at_ms INTEGER NOT NULL,
                    per_minute INTEGER NOT NULL,
                    burst INTEGER NOT NULL
                )
                """,
                """
                CREATE TABLE rate_instances (
                    instance_id TEXT NOT NULL PRIMARY KEY,
                    seen_at_ms INTEGER NOT NULL
                )
                """,
                // Per-user daily quotas (QuotaStore): what each owner reserved per UTC day, and each intent's
                // reservation (released when the intent expires unconfirmed).
                """
                CREATE TABLE quota_usage (
                    owner_id TEXT NOT NULL,
                    day_start_ms INTEGER NOT NULL,
                    uploads INTEGER NOT NULL,
                    bytes INTEGER NOT NULL,
                    PRIMARY KEY (owner_id, day_start_ms)
                )
                """,
                """
                CREATE TABLE quota_reservations (
                    image_key TEXT NOT NULL PRIMARY KEY,
                    owner_id TEXT NOT NULL,
                    day_start_ms INTEGER NOT NULL,
                    bytes INTEGER NOT NULL
                )
                """,
                "CREATE INDEX quota_reservations_day ON quota_reservations (day_start_ms)",
            ]
        ),
        (
            9,
            [
                // Intents by the object key a store event names (IntentLocator), in the per-row table: only
                // those whose object key differs from the image key (a multipart upload's `key#uploadId`, a
                // templated client key); the others are found by the image key. (Before version 10 the
                // batches' intents were found through the in-memory index.)
                "CREATE INDEX intents_object_key ON intents (object_key) WHERE object_key <> image_key"
            ]
        ),
        (
            10,
            [
                // Intents as ordinary rows, in a table clustered by (key_order, image_key): the first 64 bits
                // of the last version-7 UUID in the key (IntentKeyOrder), 0 without one. The server draws
                // that UUID with the URL's expiry as its time, so its rows are appended in expiry order and
                // the janitor reads them from the front; only the other rows (client-chosen keys) are in
                // the expiry index, whose condition is IntentKeyOrder.inKeyOrder negated. The old table and the batches are moved in by the program of this
                // version (SQLiteIntentRowsMigration), then dropped.
                "DROP INDEX intents_key_hash",
                "DROP INDEX intents_expires_at",
                "DROP INDEX intents_object_key",
                "ALTER TABLE intents RENAME TO intents_v9",
                """
                CREATE TABLE intents (
                    key_order INTEGER NOT NULL,
                    image_key TEXT NOT NULL,
                    owner_id TEXT NOT NULL,
                    object_key TEXT NOT NULL,
                    permanent_key TEXT,
                    type TEXT NOT NULL,
                    content_type TEXT,
                    allowed_content_types TEXT NOT NULL,
                    max_bytes INTEGER NOT NULL,
                    created_at_ms INTEGER NOT NULL,
                    expires_at_ms INTEGER NOT NULL,
                    metadata TEXT,
                    PRIMARY KEY (key_order, image_key)
                ) WITHOUT ROWID
                """,
                """
                CREATE INDEX intents_expiry ON intents (expires_at_ms)
                WHERE NOT (expires_at_ms = (key_order >> 16) / 1000 * 1000)
                """,
                "CREATE INDEX intents_object_key ON intents (object_key) WHERE object_key <> image_key",
            ]
        ),
        (
            11,
            [
                // What the client declared when the URL was issued (its size, the SHA-256 and MD5 of its
                // bytes), proven at confirmation: NULL when nothing was declared, and for every intent
                // written before this version.
                "ALTER TABLE intents ADD COLUMN declared_size INTEGER",
                "ALTER TABLE intents ADD COLUMN sha256 TEXT",
                "ALTER TABLE intents ADD COLUMN content_md5 TEXT",
                // The record's proven (or computed) SHA-256, base64; NULL when it has none. Found by owner
                // (`GET /images?sha256=`, `types.<T>.dedup`) through a partial index: a record without one
                // costs the group commit no index entry.
                "ALTER TABLE records ADD COLUMN sha256 TEXT",
                "CREATE INDEX records_owner_sha256 ON records (owner_id, sha256) WHERE sha256 IS NOT NULL",
            ]
        ),
        (12, SQLiteSchema.webhookOutbox),
        (13, SQLiteSchema.recordStates),
        (14, SQLiteSchema.nativeUploads),
    ]

    /// Version 13: the record's state (`published`, `scanning`, `rejected`: the malware scan before
    /// publishing, docs/scanning.md), its rejection, the permanent key it is promoted to once clean, and
    /// the scan queue's bookkeeping, found through a partial index that holds only `scanning` records (a
    /// published record costs the group commit no index entry). Every record already stored is
    /// `published`.
    static let recordStates = [
        "ALTER TABLE records ADD COLUMN state TEXT NOT NULL DEFAULT 'published'",
        "ALTER TABLE records ADD COLUMN state_reason TEXT",
        "ALTER TABLE records ADD COLUMN state_detail TEXT",
        "ALTER TABLE records ADD COLUMN publish_key TEXT",
        "ALTER TABLE records ADD COLUMN scan_attempts INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE records ADD COLUMN scan_due_ms INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE records ADD COLUMN scan_error TEXT",
        "CREATE INDEX records_scanning ON records (scan_due_ms, created_at_ms) WHERE state = 'scanning'",
    ]

    /// Version 14: the uploads of the native multipart API (`POST /uploads`: declared size, part size,
    /// state; the reconciler's open ones by when it last looked) and the keys noted before
    /// CreateMultipartUpload (the multipart janitor aborts what a crash left under them).
    static let nativeUploads = [
        """
        CREATE TABLE native_uploads (
            upload_id TEXT NOT NULL PRIMARY KEY,
            object_key TEXT NOT NULL,
            owner_id TEXT NOT NULL,
            size INTEGER NOT NULL,
            part_size INTEGER NOT NULL,
            created_at_ms INTEGER NOT NULL,
            state TEXT NOT NULL,
            reason TEXT,
            record_id TEXT,
            checked_at_ms INTEGER NOT NULL
        )
        """,
        "CREATE INDEX native_uploads_open ON native_uploads (checked_at_ms) WHERE state = 'uploading'",
        """
        CREATE TABLE multipart_creations (
            object_key TEXT NOT NULL PRIMARY KEY,
            owner_id TEXT NOT NULL,
            noted_at_ms INTEGER NOT NULL
        )
        """,
        "CREATE INDEX multipart_creations_noted ON multipart_creations (noted_at_ms)",
    ]

    /// Version 12: the outbox of outbound webhook events (WebhookOutbox, docs/webhooks.md), one row per
    /// event and endpoint, written in the transaction of the change the event reports.
    static let webhookOutbox = [
        """
        CREATE TABLE webhook_outbox (
            seq INTEGER PRIMARY KEY,
            event_id TEXT NOT NULL,
            endpoint TEXT NOT NULL,
            type TEXT NOT NULL,
            subject TEXT NOT NULL,
            body BLOB NOT NULL,
            created_at_ms INTEGER NOT NULL,
            state TEXT NOT NULL,
            attempts INTEGER NOT NULL,
            due_at_ms INTEGER NOT NULL,
            last_error TEXT,
            finished_at_ms INTEGER
        )
        """,
        "CREATE UNIQUE INDEX webhook_outbox_event ON webhook_outbox (event_id, endpoint)",
        "CREATE INDEX webhook_outbox_due ON webhook_outbox (endpoint, due_at_ms, seq) WHERE state = 'pending'",
        "CREATE INDEX webhook_outbox_subject ON webhook_outbox (endpoint, subject, seq) WHERE state = 'pending'",
        "CREATE INDEX webhook_outbox_state ON webhook_outbox (state, seq)",
        "CREATE INDEX webhook_outbox_finished ON webhook_outbox (finished_at_ms) WHERE state <> 'pending'",
    ]

    /// Work a version does beyond its statements, run after them in the same transaction.
    static let programs: [Int: @Sendable (SQLiteConnection) throws(RecordsError) -> Void] = [
        10: SQLiteIntentRowsMigration.run
    ]
}
