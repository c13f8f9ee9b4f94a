extension SQLiteRecordStore: RecordDigests {
    /// `RecordDigests.listRecords(ownerId:sha256:…)`: the owner's page through the partial index
    /// `records_owner_sha256`.
    public func listRecords(ownerId: String, sha256: String, type: String?, limit: Int, after: RecordCursor?)
        throws(RecordsError) -> (records: [ImageRecord], next: RecordCursor?)
    {
        try RecordStoreLimits.checkListLimit(limit)
        let (sql, values) = ListQuery.build(
            columns: Schema.recordColumns, ownerId: ownerId, type: type, limit: limit, after: after, sha256: sha256,
            placeholder: { "?\($0)" })
        let rows = try read { (connection) throws(RecordsError) in
            try connection.query(sql, values, row: Self.record(from:))
        }
        return ListQuery.page(rows: rows, limit: limit)
    }

    /// `RecordDigests.settleDeduplicated`: the claim settled `recorded` by `recordId`, one durable
    /// transaction.
    public func settleDeduplicated(imageKey: String, token: String, recordId: String, nowMs: Int64)
        throws(RecordsError) -> Bool
    {
        try write { (connection) throws(RecordsError) -> Bool in
            try connection.run(
                ExactlyOnceQueries.sqlite.settleClaim,
                [.text(imageKey), .text(token), .text("recorded"), .text(recordId), .text("deduplicated"), .int(nowMs)])
                == 1
        }
    }
}
