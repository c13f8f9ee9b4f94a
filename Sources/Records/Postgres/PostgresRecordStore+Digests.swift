extension PostgresRecordStore: RecordDigests {
    /// `RecordDigests.listRecords(ownerId:sha256:…)`: the owner's page through the partial index
    /// `records_owner_sha256`.
    public func listRecords(ownerId: String, sha256: String, type: String?, limit: Int, after: RecordCursor?)
        throws(RecordsError) -> (records: [ImageRecord], next: RecordCursor?)
    {
        try RecordStoreLimits.checkListLimit(limit)
        let (sql, values) = ListQuery.build(
            columns: Schema.recordColumns, ownerId: ownerId, type: type, limit: limit, after: after, sha256: sha256,
            placeholder: { "$\($0)" })
        let rows = try run { (connection) throws(RecordsError) in
            let result = try connection.executePrepared(sql, values)
            return try (0..<result.rowCount).map { (row) throws(RecordsError) in try Self.record(result, row) }
        }
        return ListQuery.page(rows: rows, limit: limit)
    }

    /// `RecordDigests.settleDeduplicated`: the claim settled `recorded` by `recordId` (one autocommitted
    /// statement, durable with `synchronous_commit=on`).
    public func settleDeduplicated(imageKey: String, token: String, recordId: String, nowMs: Int64)
        throws(RecordsError) -> Bool
    {
        let changed = try run { (connection) throws(RecordsError) -> Int in
            try connection.executePrepared(
                ExactlyOnceQueries.postgres.settleClaim,
                [.text(imageKey), .text(token), .text("recorded"), .text(recordId), .text("deduplicated"), .int(nowMs)]
            ).affectedRows
        }
        commits.add(1, ordering: .relaxed)
        return changed == 1
    }
}
