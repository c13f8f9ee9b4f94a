/// The SQL text of the PostgreSQL store's statements. Fixed-shape ones are prepared once per connection
/// (the intent upsert too: a batch travels as arrays); the multi-row record ones are built for the
/// batch size at hand (parameters only, never values, in the text).
enum PostgresQueries {
    /// The advisory lock key that serialises migrations across server instances ("pres").
    static let migrationLockKey: Int64 = 0x7072_6573

    /// Rows per multi-row statement: 18 parameters each stays far below libpq's 65,535.
    static let rowsPerStatement = 500

    /// Casts of the intent columns, in `Schema.intentColumns` order.
    private static let intentCasts = [
        "text", "text", "text", "text", "text", "text", "text", "bigint", "bigint", "bigint", "text", "bigint", "text",
        "text",
    ]

    /// Casts of the record columns, in `Schema.recordColumns` order.
    private static let recordCasts = [
        "text", "text", "text", "text", "text", "text", "bigint", "text", "text", "bigint", "text", "bigint", "bigint",
        "text", "text", "text", "text", "text",
    ]

    /// `($1::text, ...), (...)` for `rows` rows of `casts`.
    private static func valuesList(rows: Int, casts: [String]) -> String {
        (0..<rows).map { row in
            "("
                + casts.enumerated().map { "$\(row * casts.count + $0.offset + 1)::\($0.element)" }.joined(
                    separator: ", ")
                + ")"
        }.joined(separator: ", ")
    }

    /// Upserts a batch of intents given as one array per column (`PostgresArray`, in
    /// `Schema.intentColumns` order), skipping keys that already have a record: fixed text, so it is
    /// prepared once per connection and a batch is one round trip (one autocommitted statement).
    static let upsertIntents = """
        INSERT INTO intents (\(Schema.intentColumns))
        SELECT \(Schema.intentColumns) FROM unnest(\(
            intentCasts.enumerated().map { "$\($0.offset + 1)::\($0.element)[]" }.joined(separator: ", ")))
            AS v(\(Schema.intentColumns))
        WHERE NOT EXISTS (SELECT 1 FROM records WHERE records.image_key = v.image_key)
        ON CONFLICT (image_key) DO UPDATE SET
            owner_id = excluded.owner_id, object_key = excluded.object_key, permanent_key = excluded.permanent_key,
            type = excluded.type, content_type = excluded.content_type,
            allowed_content_types = excluded.allowed_content_types, max_bytes = excluded.max_bytes,
            created_at_ms = excluded.created_at_ms, expires_at_ms = excluded.expires_at_ms,
            metadata = excluded.metadata, declared_size = excluded.declared_size, sha256 = excluded.sha256,
            content_md5 = excluded.content_md5
        """

    /// Copies intents in, in the binary format (`PostgresCopyRows`, `Schema.intentColumns` order): for keys
    /// no intent or record can have yet (a taken key fails the whole copy: the caller upserts instead).
    static let copyIntents = "COPY intents (\(Schema.intentColumns)) FROM STDIN (FORMAT binary)"

    /// Inserts `rows` records, skipping taken keys, and returns the keys it inserted.
    static func insertRecords(rows: Int) -> String {
        """
        INSERT INTO records (\(Schema.recordColumns)) VALUES \(valuesList(rows: rows, casts: recordCasts))
        ON CONFLICT (image_key) DO NOTHING RETURNING image_key
        """
    }

    /// The records with any of `count` image keys.
    static func recordsByKeys(count: Int) -> String {
        "SELECT \(Schema.recordColumns) FROM records WHERE image_key IN (\(placeholders(count)))"
    }

    /// Deletes the intents with any of `count` keys.
    static func deleteIntents(count: Int) -> String {
        "DELETE FROM intents WHERE image_key IN (\(placeholders(count)))"
    }

    /// `$1, $2, ..., $count`.
    private static func placeholders(_ count: Int) -> String {
        (1...count).map { "$\($0)" }.joined(separator: ", ")
    }

    /// One intent by key.
    static let intentByKey = "SELECT \(Schema.intentColumns) FROM intents WHERE image_key = $1"

    /// One record by image key.
    static let recordByKey = "SELECT \(Schema.recordColumns) FROM records WHERE image_key = $1"

    /// One record by id, if the owner matches.
    static let recordByIdAndOwner = "SELECT \(Schema.recordColumns) FROM records WHERE id = $1 AND owner_id = $2"

    /// Deletes one record by id and owner, returning it.
    static let deleteRecord =
        "DELETE FROM records WHERE id = $1 AND owner_id = $2 RETURNING \(Schema.recordColumns)"

    /// Expired intents without a record, soonest-expired first.
    static let expiredIntents = """
        SELECT \(Schema.intentColumns) FROM intents
        WHERE expires_at_ms <= $1 AND NOT EXISTS (SELECT 1 FROM records WHERE records.image_key = intents.image_key)
        ORDER BY expires_at_ms, image_key COLLATE "C" LIMIT $2
        """
}
