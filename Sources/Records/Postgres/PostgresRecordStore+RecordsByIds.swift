extension PostgresRecordStore {
    /// The owner's records among `ids`, in one round trip: every id travels in one array parameter, so
    /// the statement's text is fixed and prepared once (`PostgresArray`).
    public func records(ids: [String], ownerId: String) throws(RecordsError) -> [ImageRecord] {
        try RecordStoreLimits.checkIdsPerRead(ids.count)
        guard !ids.isEmpty else { return [] }
        var array = PostgresArray(capacity: ids.count * 39)
        for id in ids { try array.append(id) }
        return try run { (connection) throws(RecordsError) -> [ImageRecord] in
            let result = try connection.executePrepared(
                Self.recordsByIdsAndOwner, [.text(ownerId), .text(array.literal)])
            return try (0..<result.rowCount).map { (row) throws(RecordsError) in try Self.record(result, row) }
        }
    }

    /// The owner's records whose id is in the array `$2`.
    static let recordsByIdsAndOwner =
        "SELECT \(Schema.recordColumns) FROM records WHERE owner_id = $1 AND id = ANY($2::text[])"
}
