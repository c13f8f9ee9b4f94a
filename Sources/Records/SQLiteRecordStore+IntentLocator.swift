extension SQLiteRecordStore: IntentLocator {
    /// The intents of the per-row table writing an object key that is not their image key, newest first
    /// (?1 object key): the partial index `intents_object_key` (schema version 9).
    static let intentByObjectKey = """
        SELECT \(Schema.intentColumns) FROM intents WHERE object_key = ?1 AND object_key <> image_key
        ORDER BY created_at_ms DESC LIMIT 1
        """

    /// `IntentLocator.intent(objectKey:)`: the intent of the image key `objectKey` when it writes that
    /// object; else the log's alias of the object key, then the per-row table's newest; the newer of two.
    public func intent(objectKey: String) throws(RecordsError) -> UploadIntent? {
        if let own = try intent(imageKey: objectKey), own.objectKey.hasSameBytes(as: objectKey) { return own }
        return try read { (connection) throws(RecordsError) -> UploadIntent? in
            let logged = try intentLog.lookup(objectKey: objectKey, connection)
            guard intentLog.rowsMayExist else { return logged }
            let row = try connection.query(Self.intentByObjectKey, [.text(objectKey)], row: Self.intent(from:)).first
            guard let logged, let row else { return logged ?? row }
            return row.createdAtMs > logged.createdAtMs ? row : logged
        }
    }
}
