/// The SQL text of the SQLite store's statements (each prepared once per connection).
enum SQLiteQueries {
    /// Upserts one intent unless its key already has a record.
    static let upsertIntent = """
        INSERT INTO intents (\(Schema.intentColumns))
        SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10
        WHERE NOT EXISTS (SELECT 1 FROM records WHERE records.image_key = ?1)
        ON CONFLICT (image_key) DO UPDATE SET
            owner_id = excluded.owner_id, object_key = excluded.object_key, permanent_key = excluded.permanent_key,
            type = excluded.type, content_type = excluded.content_type,
            allowed_content_types = excluded.allowed_content_types, max_bytes = excluded.max_bytes,
            created_at_ms = excluded.created_at_ms, expires_at_ms = excluded.expires_at_ms
        """

    /// One intent by key.
    static let intentByKey = "SELECT \(Schema.intentColumns) FROM intents WHERE image_key = ?1"

    /// Inserts one record unless its key is taken (then nothing changes).
    static let insertRecord = """
        INSERT INTO records (\(Schema.recordColumns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
        ON CONFLICT (image_key) DO NOTHING
        """

    /// One record by image key.
    static let recordByKey = "SELECT \(Schema.recordColumns) FROM records WHERE image_key = ?1"

    /// One record by id, if the owner matches.
    static let recordByIdAndOwner = "SELECT \(Schema.recordColumns) FROM records WHERE id = ?1 AND owner_id = ?2"

    /// Deletes one record by id and owner, returning it.
    static let deleteRecord =
        "DELETE FROM records WHERE id = ?1 AND owner_id = ?2 RETURNING \(Schema.recordColumns)"

    /// Expired intents without a record, soonest-expired first.
    static let expiredIntents = """
        SELECT \(Schema.intentColumns) FROM intents
        WHERE expires_at_ms <= ?1 AND NOT EXISTS (SELECT 1 FROM records WHERE records.image_key = intents.image_key)
        ORDER BY expires_at_ms, image_key LIMIT ?2
        """

    /// Deletes one intent by key.
    static let deleteIntent = "DELETE FROM intents WHERE image_key = ?1"
}
