/// The SQL text of the SQLite store's statements (each prepared once per connection).
///
/// Intents are rows of `intents` (schema version 10), keyed by `(key_order, image_key)`: `key_order` is
/// the first 64 bits of the last version-7 UUID in the image key (`IntentKeyOrder`), 0 without one.
/// For a key the server drew, that UUID's time is the URL's expiry to the millisecond, so those rows are
/// in expiry order and their `expires_at_ms` is that time rounded down to the second (`IntentKeyOrder.inKeyOrder`);
/// every other row is in the partial index `intents_expiry`.
enum SQLiteQueries {
    /// The columns an intent row is written with: its order, then `Schema.intentColumns`.
    static let intentRowColumns = "key_order, \(Schema.intentColumns)"

    /// Values per intent row.
    static let valuesPerIntent = 15

    /// Intent rows per multi-row statement: 960 parameters, well below SQLite's limit (32,766); with
    /// many more rows per statement, SQLite's own per-parameter work grows.
    static let intentRowsPerStatement = 64

    /// `(?, ?, …), (…)`: `rows` rows of the intent's values.
    private static func valueRows(_ rows: Int) -> String {
        let one = "(" + Array(repeating: "?", count: valuesPerIntent).joined(separator: ", ") + ")"
        return Array(repeating: one, count: rows).joined(separator: ", ")
    }

    /// What a re-issue of a key with an intent row changes: everything but the key.
    private static let replaceIntent = """
        ON CONFLICT (key_order, image_key) DO UPDATE SET
            owner_id = excluded.owner_id, object_key = excluded.object_key, permanent_key = excluded.permanent_key,
            type = excluded.type, content_type = excluded.content_type,
            allowed_content_types = excluded.allowed_content_types, max_bytes = excluded.max_bytes,
            created_at_ms = excluded.created_at_ms, expires_at_ms = excluded.expires_at_ms,
            metadata = excluded.metadata, declared_size = excluded.declared_size, sha256 = excluded.sha256,
            content_md5 = excluded.content_md5
        """

    /// Inserts `rows` intents whose keys are fresh (nobody knew them before their URL, so no record is
    /// looked for); a key that was taken after all (a UUID source that repeats) replaces its row unless
    /// it has a record. A key twice in the statement: the later row wins (SQLite applies them in order).
    static func insertFreshIntents(rows: Int) -> String {
        """
        INSERT INTO intents (\(intentRowColumns)) VALUES \(valueRows(rows))
        \(replaceIntent)
        WHERE NOT EXISTS (SELECT 1 FROM records WHERE records.image_key = excluded.image_key)
        """
    }

    /// Upserts `rows` intents, skipping keys that have a record: a re-issue replaces the intent of its
    /// key, a recorded key keeps what it has. A key twice in the statement: the later row wins.
    static func upsertIntents(rows: Int) -> String {
        """
        INSERT INTO intents (\(intentRowColumns))
        SELECT * FROM (VALUES \(valueRows(rows))) AS v
        WHERE NOT EXISTS (SELECT 1 FROM records WHERE records.image_key = v.column2)
        \(replaceIntent)
        """
    }

    /// One intent by its order and key (?1, ?2): one primary-key lookup.
    static let intentByKey = "SELECT \(Schema.intentColumns) FROM intents WHERE key_order = ?1 AND image_key = ?2"

    /// Deletes one intent by its order and key (?1, ?2).
    static let deleteIntent = "DELETE FROM intents WHERE key_order = ?1 AND image_key = ?2"

    /// The newest intent of another image key that writes the object key ?1 (the partial index
    /// `intents_object_key`).
    static let intentByObjectKey = """
        SELECT \(Schema.intentColumns) FROM intents WHERE object_key = ?1 AND object_key <> image_key
        ORDER BY created_at_ms DESC LIMIT 1
        """

    /// The rows in expiry order whose URL expired (?1: `IntentKeyOrder.bound(expiredBy:)`), without a
    /// record, in that order, at most ?2: the front of the primary key.
    static let expiredInKeyOrder = """
        SELECT \(Schema.intentColumns) FROM intents
        WHERE key_order > 0 AND key_order < ?1 AND \(IntentKeyOrder.inKeyOrder)
        AND NOT EXISTS (SELECT 1 FROM records WHERE records.image_key = intents.image_key)
        ORDER BY key_order, image_key LIMIT ?2
        """

    /// The other rows that expired by ?1, without a record, soonest first, at most ?2 (the partial
    /// index `intents_expiry`).
    static let expiredByExpiry = """
        SELECT \(Schema.intentColumns) FROM intents
        WHERE NOT \(IntentKeyOrder.inKeyOrder) AND expires_at_ms <= ?1
        AND NOT EXISTS (SELECT 1 FROM records WHERE records.image_key = intents.image_key)
        ORDER BY expires_at_ms, image_key LIMIT ?2
        """

    /// The order and key of at most ?3 expired intents of recorded keys (?1 and ?2 as in the two reads
    /// above), to delete: they are never returned, and would otherwise be read past at every janitor pass.
    static let expiredRecorded = """
        SELECT key_order, image_key FROM intents
        WHERE key_order > 0 AND key_order < ?1 AND \(IntentKeyOrder.inKeyOrder)
        AND EXISTS (SELECT 1 FROM records WHERE records.image_key = intents.image_key)
        UNION ALL
        SELECT key_order, image_key FROM intents
        WHERE NOT \(IntentKeyOrder.inKeyOrder) AND expires_at_ms <= ?2
        AND EXISTS (SELECT 1 FROM records WHERE records.image_key = intents.image_key)
        LIMIT ?3
        """

    /// Inserts one record unless its key is taken (then nothing changes).
    static let insertRecord = """
        INSERT INTO records (\(Schema.recordColumns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)
        ON CONFLICT (image_key) DO NOTHING
        """

    /// One record by image key.
    static let recordByKey = "SELECT \(Schema.recordColumns) FROM records WHERE image_key = ?1"

    /// One record by id, if the owner matches.
    static let recordByIdAndOwner = "SELECT \(Schema.recordColumns) FROM records WHERE id = ?1 AND owner_id = ?2"

    /// Deletes one record by id and owner, returning it.
    static let deleteRecord =
        "DELETE FROM records WHERE id = ?1 AND owner_id = ?2 RETURNING \(Schema.recordColumns)"
}
