extension SQLiteRecordStore: IntentLocator {
    /// `IntentLocator.intent(objectKey:)`: the intent of the image key `objectKey` when it writes that
    /// object, else the newest intent of another image key that writes it (the partial index
    /// `intents_object_key`).
    public func intent(objectKey: String) throws(RecordsError) -> UploadIntent? {
        if let own = try intent(imageKey: objectKey), own.objectKey.hasSameBytes(as: objectKey) { return own }
        return try read { (connection) throws(RecordsError) -> UploadIntent? in
            try connection.query(SQLiteQueries.intentByObjectKey, [.text(objectKey)], row: Self.intent(from:)).first
        }
    }
}
