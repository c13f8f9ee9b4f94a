extension SQLiteRecordStore {
    /// The owner's records among `ids`: one primary-key lookup per id on one read connection and its
    /// cached statement (in process, a lookup costs no round trip, so one statement per id is as cheap
    /// as one statement for all and needs no statement per count).
    public func records(ids: [String], ownerId: String) throws(RecordsError) -> [ImageRecord] {
        try RecordStoreLimits.checkIdsPerRead(ids.count)
        guard !ids.isEmpty else { return [] }
        return try read { (connection) throws(RecordsError) -> [ImageRecord] in
            var found: [ImageRecord] = []
            found.reserveCapacity(ids.count)
            for id in ids {
                let rows = try connection.query(
                    SQLiteQueries.recordByIdAndOwner, [.text(id), .text(ownerId)], row: Self.record(from:))
                if let record = rows.first { found.append(record) }
            }
            return found
        }
    }
}
