extension SQLiteRecordStore: WebhookOutbox {
    /// The statements.
    private var o: OutboxQueries { OutboxQueries.sqlite }

    /// Writes `events` inside the caller's transaction on the writer (`connection`): the one place every
    /// change that reports an event writes it (`recordClaimed`, `fillSlot`, `deleteRecord`, `expireClaim`,
    /// `appendOutboxEvents`).
    func appendOutbox(_ events: [OutboxEvent], _ connection: SQLiteConnection) throws(RecordsError) {
        for event in events {
            for row in OutboxQueries.rows(of: event) { try connection.run(OutboxQueries.sqlite.insert, row) }
        }
    }

    /// `WebhookOutbox.appendOutboxEvents` in one durable transaction.
    public func appendOutboxEvents(_ events: [OutboxEvent]) throws(RecordsError) {
        guard events.contains(where: { !$0.endpoints.isEmpty }) else { return }
        try write { (connection) throws(RecordsError) in try appendOutbox(events, connection) }
    }

    /// `WebhookOutbox.dueWebhookDeliveries`.
    public func dueWebhookDeliveries(endpoint: String, nowMs: Int64, limit: Int) throws(RecordsError)
        -> [WebhookDelivery]
    {
        try OutboxQueries.checkLimit(limit)
        return try read { (connection) throws(RecordsError) in
            try connection.query(o.due, [.text(endpoint), .int(nowMs), .int(Int64(limit))], row: Self.delivery(from:))
        }
    }

    /// `WebhookOutbox.settleWebhookDelivery`, committed without its own fsync (a settlement lost to a power
    /// cut is an attempt made again, under the same event id).
    public func settleWebhookDelivery(seq: Int64, attempt: WebhookAttempt, nowMs: Int64) throws(RecordsError) -> Bool {
        try write(durable: false) { (connection) throws(RecordsError) -> Bool in
            try Self.settle(seq: seq, attempt: attempt, nowMs: nowMs, connection)
        }
    }

    /// Settles one attempt inside the caller's transaction.
    static func settle(seq: Int64, attempt: WebhookAttempt, nowMs: Int64, _ connection: SQLiteConnection)
        throws(RecordsError) -> Bool
    {
        let q = OutboxQueries.sqlite
        switch attempt {
        case .delivered: return try connection.run(q.delivered, [.int(seq), .int(nowMs)]) == 1
        case .retry(let dueAtMs, let error):
            return try connection.run(q.retry, [.int(seq), .int(dueAtMs), .text(error)]) == 1
        case .failed(let error): return try connection.run(q.failed, [.int(seq), .int(nowMs), .text(error)]) == 1
        }
    }

    /// `WebhookOutbox.webhookDeliveries(state:limit:afterSeq:)`.
    public func webhookDeliveries(state: WebhookDelivery.State, limit: Int, afterSeq: Int64?) throws(RecordsError)
        -> [WebhookDelivery]
    {
        try OutboxQueries.checkLimit(limit)
        return try read { (connection) throws(RecordsError) in
            try connection.query(
                o.byState, [.text(state.rawValue), .int(afterSeq ?? 0), .int(Int64(limit))], row: Self.delivery(from:))
        }
    }

    /// `WebhookOutbox.webhookDeliveries(eventId:)`.
    public func webhookDeliveries(eventId: String) throws(RecordsError) -> [WebhookDelivery] {
        try read { (connection) throws(RecordsError) in
            try connection.query(o.byEvent, [.text(eventId)], row: Self.delivery(from:))
        }
    }

    /// `WebhookOutbox.redeliverWebhookEvent`, durable.
    public func redeliverWebhookEvent(eventId: String, nowMs: Int64) throws(RecordsError) -> Int {
        try write { (connection) throws(RecordsError) -> Int in
            try connection.run(o.redeliver, [.text(eventId), .int(nowMs)])
        }
    }

    /// `WebhookOutbox.webhookOutboxStats`.
    public func webhookOutboxStats() throws(RecordsError) -> WebhookOutboxStats {
        try read { (connection) throws(RecordsError) in
            let pending = try connection.query(o.pendingCount, []) { $0.int64(0) }.first ?? 0
            let failed = try connection.query(o.failedCount, []) { $0.int64(0) }.first ?? 0
            let oldest = try connection.query(o.oldestPending, []) { $0.int64(0) }.first
            return WebhookOutboxStats(pending: Int(pending), oldestPendingCreatedAtMs: oldest, failed: Int(failed))
        }
    }

    /// `WebhookOutbox.pruneWebhookDeliveries`.
    public func pruneWebhookDeliveries(finishedBeforeMs beforeMs: Int64, limit: Int) throws(RecordsError) -> Int {
        try OutboxQueries.checkLimit(limit)
        return try write(durable: false) { (connection) throws(RecordsError) -> Int in
            try connection.run(o.prune, [.int(beforeMs), .int(Int64(limit))])
        }
    }

    /// A delivery from a row in `OutboxQueries.columns` order.
    private static func delivery(from row: SQLiteStatement) throws(RecordsError) -> WebhookDelivery {
        let body = try row.withBlob(5) { (bytes) throws(RecordsError) in Array(bytes) }
        return WebhookDelivery(
            seq: row.int64(0), eventId: row.text(1), endpoint: row.text(2), type: row.text(3), subject: row.text(4),
            body: body, createdAtMs: row.int64(6), state: try OutboxQueries.state(row.text(7)),
            attempts: Int(row.int64(8)), dueAtMs: row.int64(9), lastError: row.optionalText(10),
            finishedAtMs: row.optionalInt64(11))
    }
}
