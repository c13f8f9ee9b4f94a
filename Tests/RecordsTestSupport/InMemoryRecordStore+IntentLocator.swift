import Records

extension InMemoryRecordStore: IntentLocator {
    /// `IntentLocator.intent(objectKey:)`: the intent of the image key `objectKey` when it writes that
    /// object, else the newest intent of another image key that does (a scan: a store for tests).
    public func intent(objectKey: String) throws(RecordsError) -> UploadIntent? {
        state.withLock { state in
            if let own = state.intents[objectKey], own.objectKey.hasSameBytes(as: objectKey) { return own }
            return state.intents.values.filter { $0.objectKey.hasSameBytes(as: objectKey) }
                .max { ($0.createdAtMs, $0.imageKey) < ($1.createdAtMs, $1.imageKey) }
        }
    }
}
