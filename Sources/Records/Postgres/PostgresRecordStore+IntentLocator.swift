extension PostgresRecordStore: IntentLocator {
    /// The newest intent writing an object key that is not its image key ($1 object key): the partial
    /// index `intents_object_key` (schema version 9).
    static let intentByObjectKey = """
        SELECT \(Schema.intentColumns) FROM intents WHERE object_key = $1 AND object_key <> image_key
        ORDER BY created_at_ms DESC LIMIT 1
        """

    /// `IntentLocator.intent(objectKey:)`: the intent of the image key `objectKey` when it writes that
    /// object, else the newest intent of another image key that does.
    public func intent(objectKey: String) throws(RecordsError) -> UploadIntent? {
        if let own = try intent(imageKey: objectKey), own.objectKey.hasSameBytes(as: objectKey) { return own }
        return try run { (connection) throws(RecordsError) -> UploadIntent? in
            let result = try connection.executePrepared(Self.intentByObjectKey, [.text(objectKey)])
            return result.rowCount == 0 ? nil : try Self.intent(result, 0)
        }
    }
}
