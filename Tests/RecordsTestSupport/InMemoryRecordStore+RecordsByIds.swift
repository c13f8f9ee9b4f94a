import Records

extension InMemoryRecordStore {
    /// The owner's records among `ids`, under one lock.
    public func records(ids: [String], ownerId: String) throws(RecordsError) -> [ImageRecord] {
        try RecordStoreLimits.checkIdsPerRead(ids.count)
        return state.withLock { state in
            ids.compactMap { id in state.records[id].flatMap { $0.ownerId == ownerId ? $0 : nil } }
        }
    }
}
