/// The SQL text of the SQLite store's statements (each prepared once per connection).
enum SQLiteQueries {
    /// Removes the current intent of a key (?1 hash, ?2 key) unless the key has a record: the first half
    /// of an upsert.
    static let replaceIntentDelete = """
        DELETE FROM intents WHERE key_hash = ?1 AND image_key = ?2
        AND NOT EXISTS (SELECT 1 FROM records WHERE records.image_key = ?2)
        """

    /// Inserts one intent (?1 hash, then the intent columns) unless its key has a record.
    static let replaceIntentInsert = """
        INSERT INTO intents (key_hash, \(Schema.intentColumns))
        SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12
        WHERE NOT EXISTS (SELECT 1 FROM records WHERE records.image_key = ?2)
        """

    /// One intent by hash and key.
    static let intentByKey = "SELECT \(Schema.intentColumns) FROM intents WHERE key_hash = ?1 AND image_key = ?2"

    /// Inserts one record unless its key is taken (then nothing changes).
    static let insertRecord = """
        INSERT INTO records (\(Schema.recordColumns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
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
    static let deleteIntent = "DELETE FROM intents WHERE key_hash = ?1 AND image_key = ?2"

    /// Whether the per-row intents table has any row.
    static let anyIntentRow = "SELECT 1 FROM intents LIMIT 1"

    /// Whether a key has a record.
    static let recordExists = "SELECT 1 FROM records WHERE image_key = ?1"

    /// Appends a batch of intents (?1 its next expiry, ?2 the blob).
    static let insertBatch = "INSERT INTO intent_batches (next_expiry_ms, data) VALUES (?1, ?2)"

    /// The blob of one batch.
    static let batchData = "SELECT data FROM intent_batches WHERE id = ?1"

    /// The batches after an id, oldest first.
    static let batchesAfter = "SELECT id, data FROM intent_batches WHERE id > ?1 ORDER BY id"

    /// The highest batch id ever given (AUTOINCREMENT's counter; no row before the first batch).
    static let lastBatchIssued = "SELECT seq FROM sqlite_sequence WHERE name = 'intent_batches'"

    /// The newest batch id (0 when there is none).
    static let newestBatch = "SELECT COALESCE(MAX(id), 0) FROM intent_batches"
    /// The oldest batch left (NULL when there is none).
    static let oldestBatch = "SELECT MIN(id) FROM intent_batches"

    /// Batches after id ?1 whose next expiry has passed (?2 now), in id order, at most ?3. The `+`
    /// keeps SQLite on the rowid order (no index on the expiry: this runs once per janitor pass, and
    /// reading each batch row's first page is cheaper than maintaining one more index per batch).
    static let dueBatches = """
        SELECT id, next_expiry_ms FROM intent_batches WHERE id > ?1 AND +next_expiry_ms <= ?2
        ORDER BY id LIMIT ?3
        """

    /// Replaces a batch's blob and next expiry.
    static let updateBatch = "UPDATE intent_batches SET next_expiry_ms = ?2, data = ?3 WHERE id = ?1"

    /// Deletes a batch.
    static let deleteBatch = "DELETE FROM intent_batches WHERE id = ?1"
}
