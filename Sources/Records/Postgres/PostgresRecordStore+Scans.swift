extension PostgresRecordStore: ScanQueue {
    /// `ScanQueue.dueScans`, through the partial index `records_scanning`.
    public func dueScans(nowMs: Int64, limit: Int) throws(RecordsError) -> [ScanEntry] {
        try RecordStoreLimits.checkBatchLimit(limit)
        return try run { (connection) throws(RecordsError) -> [ScanEntry] in
            let result = try connection.executePrepared(ScanQueries.postgres.due, [.int(nowMs), .int(Int64(limit))])
            var entries: [ScanEntry] = []
            for row in 0..<result.rowCount {
                entries.append(
                    ScanEntry(
                        record: try Self.record(result, row), attempts: Int(try result.int64(row, 18)),
                        dueAtMs: try result.int64(row, 19), lastError: result.optionalText(row, 20)))
            }
            return entries
        }
    }

    /// `ScanQueue.settleScan` in one transaction.
    public func settleScan(id: String, _ settlement: ScanSettlement, events: (ImageRecord) -> [OutboxEvent])
        throws(RecordsError) -> ImageRecord?
    {
        let settled = try run { (connection) throws(RecordsError) -> ImageRecord? in
            try connection.transaction { () throws(RecordsError) -> ImageRecord? in
                try Self.settleScanInTransaction(id: id, settlement, events: events, connection)
            }
        }
        commits.add(1, ordering: .relaxed)
        return settled
    }

    /// Settles one scan inside the caller's transaction, with its events.
    static func settleScanInTransaction(
        id: String, _ settlement: ScanSettlement, events: (ImageRecord) -> [OutboxEvent],
        _ connection: PostgresConnection
    ) throws(RecordsError) -> ImageRecord? {
        let (sql, values) = ScanQueries.postgres.statement(id: id, settlement)
        let result = try connection.executePrepared(sql, values)
        guard result.rowCount > 0 else { return nil }
        let record = try record(result, 0)
        try appendOutbox(events(record), connection)
        return record
    }

    /// `ScanQueue.scanQueueStats`.
    public func scanQueueStats() throws(RecordsError) -> ScanQueueStats {
        try run { (connection) throws(RecordsError) -> ScanQueueStats in
            let count = try connection.executePrepared(ScanQueries.postgres.count, [])
            let oldest = try connection.executePrepared(ScanQueries.postgres.oldest, [])
            return ScanQueueStats(
                scanning: Int(try count.int64(0, 0)),
                oldestCreatedAtMs: oldest.rowCount > 0 ? try oldest.optionalInt64(0, 0) : nil)
        }
    }
}
