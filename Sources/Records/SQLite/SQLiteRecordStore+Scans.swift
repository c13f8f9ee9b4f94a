extension SQLiteRecordStore: ScanQueue {
    /// `ScanQueue.dueScans`, through the partial index `records_scanning`.
    public func dueScans(nowMs: Int64, limit: Int) throws(RecordsError) -> [ScanEntry] {
        try RecordStoreLimits.checkBatchLimit(limit)
        return try read { (connection) throws(RecordsError) in
            try connection.query(ScanQueries.sqlite.due, [.int(nowMs), .int(Int64(limit))]) {
                (row) throws(RecordsError) in
                ScanEntry(
                    record: try Self.record(from: row), attempts: Int(row.int64(18)), dueAtMs: row.int64(19),
                    lastError: row.optionalText(20))
            }
        }
    }

    /// `ScanQueue.settleScan` in one durable transaction.
    public func settleScan(id: String, _ settlement: ScanSettlement, events: (ImageRecord) -> [OutboxEvent])
        throws(RecordsError) -> ImageRecord?
    {
        try write { (connection) throws(RecordsError) -> ImageRecord? in
            try settleScanInTransaction(id: id, settlement, events: events, connection)
        }
    }

    /// Settles one scan inside the caller's transaction, with its events.
    func settleScanInTransaction(
        id: String, _ settlement: ScanSettlement, events: (ImageRecord) -> [OutboxEvent], _ connection: SQLiteConnection
    ) throws(RecordsError) -> ImageRecord? {
        let (sql, values) = ScanQueries.sqlite.statement(id: id, settlement)
        guard let record = try connection.query(sql, values, row: Self.record(from:)).first else { return nil }
        try appendOutbox(events(record), connection)
        return record
    }

    /// `ScanQueue.scanQueueStats`.
    public func scanQueueStats() throws(RecordsError) -> ScanQueueStats {
        try read { (connection) throws(RecordsError) in
            let count = try connection.query(ScanQueries.sqlite.count, []) { $0.int64(0) }.first ?? 0
            let oldest = try connection.query(ScanQueries.sqlite.oldest, []) { $0.optionalInt64(0) }.first ?? nil
            return ScanQueueStats(scanning: Int(count), oldestCreatedAtMs: oldest)
        }
    }
}
