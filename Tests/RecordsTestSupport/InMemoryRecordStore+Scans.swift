import Records

extension InMemoryRecordStore: ScanQueue {
    /// A scanning record's bookkeeping: the retries, when it is due, the last error.
    struct ScanBook: Sendable {
        var attempts = 0
        var dueAtMs: Int64 = 0
        var lastError: String?
    }

    /// `ScanQueue.dueScans`.
    public func dueScans(nowMs: Int64, limit: Int) throws(RecordsError) -> [ScanEntry] {
        guard limit >= 1 else { throw .invalidArgument("batch limit \(limit) is below 1") }
        return state.withLock { state in
            state.records.values.filter { $0.state == .scanning }.map { record in
                let book = state.scans[record.id] ?? ScanBook()
                return ScanEntry(
                    record: record, attempts: book.attempts, dueAtMs: book.dueAtMs, lastError: book.lastError)
            }.filter { $0.dueAtMs <= nowMs }.sorted {
                ($0.dueAtMs, $0.record.createdAtMs) < ($1.dueAtMs, $1.record.createdAtMs)
            }.prefix(limit).map { $0 }
        }
    }

    /// `ScanQueue.settleScan` under the store's lock.
    public func settleScan(id: String, _ settlement: ScanSettlement, events: (ImageRecord) -> [OutboxEvent])
        throws(RecordsError) -> ImageRecord?
    {
        let settled = state.withLock { state -> ImageRecord? in
            guard let record = state.records[id],
                let settled = Self.settle(record, settlement, book: &state.scans[id, default: ScanBook()])
            else { return nil }
            state.records[id] = settled
            Self.appendOutbox(events(settled), &state)
            return settled
        }
        commits.add(1, ordering: .relaxed)
        return settled
    }

    /// `record` after `settlement`, its bookkeeping updated; nil when it is not scanning.
    static func settle(_ record: ImageRecord, _ settlement: ScanSettlement, book: inout ScanBook) -> ImageRecord? {
        guard record.state == .scanning else { return nil }
        var settled = record
        switch settlement {
        case .published(let objectKey):
            settled.state = .published
            settled.objectKey = objectKey
            settled.publishKey = nil
        case .rejected(let reason, let detail):
            settled.state = .rejected
            settled.rejectionReason = reason
            settled.rejectionDetail = detail
            settled.publishKey = nil
        case .retry(let dueAtMs, let error):
            book.attempts += 1
            book.dueAtMs = dueAtMs
            book.lastError = error
        }
        return settled
    }

    /// `ScanQueue.scanQueueStats`.
    public func scanQueueStats() throws(RecordsError) -> ScanQueueStats {
        state.withLock { state in
            let scanning = state.records.values.filter { $0.state == .scanning }
            return ScanQueueStats(scanning: scanning.count, oldestCreatedAtMs: scanning.map(\.createdAtMs).min())
        }
    }
}
