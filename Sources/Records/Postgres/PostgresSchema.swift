/// The PostgreSQL dialect of the schema: its version table and each version's statements, oldest first
/// (`Schema.migrations` pairs them with SQLite's by version).
enum PostgresSchema {
    /// The table of applied versions.
    static let versionTable = """
        CREATE TABLE IF NOT EXISTS schema_version (
            version INTEGER NOT NULL PRIMARY KEY,
            applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
        )
        """

    /// Each version's statements, oldest first.
    static let steps: [(version: Int, statements: [String])] = [
        (
            1,
            [
                """
                CREATE TABLE intents (
                    image_key TEXT NOT NULL PRIMARY KEY,
                    owner_id TEXT NOT NULL,
                    object_key TEXT NOT NULL,
                    permanent_key TEXT,
                    type TEXT NOT NULL,
                    content_type TEXT,
                    allowed_content_types TEXT NOT NULL,
                    max_bytes BIGINT NOT NULL,
                    created_at_ms BIGINT NOT NULL,
                    expires_at_ms BIGINT NOT NULL
                )
                """,
                "CREATE INDEX intents_expires_at ON intents (expires_at_ms)",
                """
                CREATE TABLE records (
                    id TEXT COLLATE "C" NOT NULL PRIMARY KEY,
                    owner_id TEXT NOT NULL,
                    image_key TEXT NOT NULL,
                    object_key TEXT NOT NULL,
                    type TEXT NOT NULL,
                    content_type TEXT NOT NULL,
                    size BIGINT NOT NULL,
                    etag TEXT NOT NULL,
                    metadata TEXT NOT NULL,
                    created_at_ms BIGINT NOT NULL
                )
                """,
                "CREATE UNIQUE INDEX records_image_key ON records (image_key)",
                "CREATE INDEX records_owner_created ON records (owner_id, created_at_ms DESC, id DESC)",
            ]
        ),
        (2, []),
        (
            3,
            [
                "ALTER TABLE records ADD COLUMN detected_type TEXT",
                "ALTER TABLE records ADD COLUMN width BIGINT",
                "ALTER TABLE records ADD COLUMN height BIGINT",
            ]
        ),
        // Versions are looked up one by one (`missingMigrations`): a store that has 1, 2 and 4 still gets 3.
        (
            4,
            [
                """
                CREATE TABLE record_slots (
                    owner_id TEXT NOT NULL,
                    slot TEXT NOT NULL,
                    record_id TEXT NOT NULL,
                    PRIMARY KEY (owner_id, slot)
                )
                """,
                "CREATE INDEX record_slots_record ON record_slots (record_id)",
                """
                CREATE TABLE object_deletions (
                    object_key TEXT NOT NULL PRIMARY KEY,
                    requested_at_ms BIGINT NOT NULL
                )
                """,
            ]
        ),
        (5, ["ALTER TABLE intents ADD COLUMN metadata TEXT"]),
        (
            7,
            [
                """
                CREATE TABLE intent_claims (
                    image_key TEXT NOT NULL PRIMARY KEY,
                    intent_created_at_ms BIGINT NOT NULL,
                    claimant TEXT NOT NULL,
                    token TEXT NOT NULL,
                    state TEXT NOT NULL,
                    lease_until_ms BIGINT NOT NULL,
                    claimed_at_ms BIGINT NOT NULL,
                    updated_at_ms BIGINT NOT NULL,
                    record_id TEXT,
                    reason TEXT
                )
                """,
                "CREATE INDEX intent_claims_updated ON intent_claims (updated_at_ms)",
                """
                CREATE TABLE event_inbox (
                    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    source TEXT NOT NULL,
                    body BYTEA NOT NULL,
                    received_at_ms BIGINT NOT NULL,
                    attempts INTEGER NOT NULL,
                    state TEXT NOT NULL,
                    reason TEXT,
                    due_at_ms BIGINT NOT NULL,
                    lease_token TEXT,
                    finished_at_ms BIGINT
                )
                """,
                "CREATE INDEX event_inbox_due ON event_inbox (state, due_at_ms)",
                """
                CREATE TABLE multipart_uploads (
                    object_key TEXT NOT NULL,
                    upload_id TEXT NOT NULL,
                    image_key TEXT NOT NULL,
                    owner_id TEXT NOT NULL,
                    created_at_ms BIGINT NOT NULL,
                    parts TEXT,
                    completing_at_ms BIGINT,
                    PRIMARY KEY (object_key, upload_id)
                )
                """,
                "CREATE INDEX multipart_uploads_created ON multipart_uploads (created_at_ms)",
            ]
        ),
        (
            8,
            [
                """
                CREATE TABLE leases (
                    name TEXT COLLATE "C" NOT NULL PRIMARY KEY,
                    holder TEXT NOT NULL,
                    token BIGINT NOT NULL,
                    expires_at_ms BIGINT NOT NULL,
                    acquired_at_ms BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE rate_buckets (
                    key TEXT COLLATE "C" NOT NULL PRIMARY KEY,
                    tokens DOUBLE PRECISION NOT NULL,
                    updated_at_ms BIGINT NOT NULL,
                    per_minute BIGINT NOT NULL,
                    burst BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE rate_instances (
                    instance_id TEXT NOT NULL PRIMARY KEY,
                    seen_at_ms BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE quota_usage (
                    owner_id TEXT NOT NULL,
                    day_start_ms BIGINT NOT NULL,
                    uploads BIGINT NOT NULL,
                    bytes BIGINT NOT NULL,
                    PRIMARY KEY (owner_id, day_start_ms)
                )
                """,
                """
                CREATE TABLE quota_reservations (
                    image_key TEXT COLLATE "C" NOT NULL PRIMARY KEY,
                    owner_id TEXT NOT NULL,
                    day_start_ms BIGINT NOT NULL,
                    bytes BIGINT NOT NULL
                )
                """,
                "CREATE INDEX quota_reservations_day ON quota_reservations (day_start_ms)",
            ]
        ),
        // Intents by the object key a store event names (IntentLocator): a partial index, so an intent whose
        // object key is its image key (client P's, client B's default) costs the write path no index entry.
        (9, ["CREATE INDEX intents_object_key ON intents (object_key) WHERE object_key <> image_key"]),
        // SQLite's intents as ordinary rows (SQLiteSchema): PostgreSQL's already are.
        (10, []),
        // The declared size and digests of an intent, the record's SHA-256 and its partial index by owner
        // (SQLiteSchema's version 11).
        (
            11,
            [
                "ALTER TABLE intents ADD COLUMN declared_size BIGINT",
                "ALTER TABLE intents ADD COLUMN sha256 TEXT",
                "ALTER TABLE intents ADD COLUMN content_md5 TEXT",
                "ALTER TABLE records ADD COLUMN sha256 TEXT",
                "CREATE INDEX records_owner_sha256 ON records (owner_id, sha256) WHERE sha256 IS NOT NULL",
            ]
        ),
        (12, PostgresSchema.webhookOutbox),
        (13, PostgresSchema.recordStates),
        (14, PostgresSchema.nativeUploads),
    ]

    /// Version 13: the record's state, rejection, key to publish at and scan bookkeeping (SQLiteSchema's
    /// version 13). Adding a column with a constant default rewrites no row (PostgreSQL 11 and later).
    static let recordStates = [
        "ALTER TABLE records ADD COLUMN state TEXT NOT NULL DEFAULT 'published'",
        "ALTER TABLE records ADD COLUMN state_reason TEXT",
        "ALTER TABLE records ADD COLUMN state_detail TEXT",
        "ALTER TABLE records ADD COLUMN publish_key TEXT",
        "ALTER TABLE records ADD COLUMN scan_attempts INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE records ADD COLUMN scan_due_ms BIGINT NOT NULL DEFAULT 0",
        "ALTER TABLE records ADD COLUMN scan_error TEXT",
        "CREATE INDEX records_scanning ON records (scan_due_ms, created_at_ms) WHERE state = 'scanning'",
    ]

    /// Version 14: the native uploads and the keys noted before CreateMultipartUpload (SQLiteSchema's
    /// version 14).
    static let nativeUploads = [
        """
        CREATE TABLE native_uploads (
            upload_id TEXT COLLATE "C" NOT NULL PRIMARY KEY,
            object_key TEXT NOT NULL,
            owner_id TEXT NOT NULL,
            size BIGINT NOT NULL,
            part_size BIGINT NOT NULL,
            created_at_ms BIGINT NOT NULL,
            state TEXT NOT NULL,
            reason TEXT,
            record_id TEXT,
            checked_at_ms BIGINT NOT NULL
        )
        """,
        "CREATE INDEX native_uploads_open ON native_uploads (checked_at_ms) WHERE state = 'uploading'",
        """
        CREATE TABLE multipart_creations (
            object_key TEXT COLLATE "C" NOT NULL PRIMARY KEY,
            owner_id TEXT NOT NULL,
            noted_at_ms BIGINT NOT NULL
        )
        """,
        "CREATE INDEX multipart_creations_noted ON multipart_creations (noted_at_ms)",
    ]

    /// Version 12: the outbox of outbound webhook events (WebhookOutbox, docs/webhooks.md), one row per
    /// event and endpoint, written in the transaction of the change the event reports.
    static let webhookOutbox = [
        """
        CREATE TABLE webhook_outbox (
            seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            event_id TEXT COLLATE "C" NOT NULL,
            endpoint TEXT COLLATE "C" NOT NULL,
            type TEXT NOT NULL,
            subject TEXT COLLATE "C" NOT NULL,
            body BYTEA NOT NULL,
            created_at_ms BIGINT NOT NULL,
            state TEXT NOT NULL,
            attempts INTEGER NOT NULL,
            due_at_ms BIGINT NOT NULL,
            last_error TEXT,
            finished_at_ms BIGINT
        )
        """,
        "CREATE UNIQUE INDEX webhook_outbox_event ON webhook_outbox (event_id, endpoint)",
        "CREATE INDEX webhook_outbox_due ON webhook_outbox (endpoint, due_at_ms, seq) WHERE state = 'pending'",
        "CREATE INDEX webhook_outbox_subject ON webhook_outbox (endpoint, subject, seq) WHERE state = 'pending'",
        "CREATE INDEX webhook_outbox_state ON webhook_outbox (state, seq)",
        "CREATE INDEX webhook_outbox_finished ON webhook_outbox (finished_at_ms) WHERE state <> 'pending'",
    ]
}
