import Crypto

extension PostgresRecordStore: WebhookOutbox {
    /// The statements.
    private var o: OutboxQueries { OutboxQueries.postgres }

    /// Writes `events` inside the caller's transaction on `connection`: the one place every change that
    /// reports an event writes it (`recordClaimed`, `fillSlot`, `deleteRecord`, `expireClaim`,
    /// `appendOutboxEvents`). One statement for all of them, whatever their number (a group commit's
    /// batch of confirmations writes its events in one round trip, not one per record), its rows taken
    /// in the order given so that `seq` follows it.
    static func appendOutbox(_ events: [OutboxEvent], _ connection: PostgresConnection) throws(RecordsError) {
        var ids = PostgresArray()
        var endpoints = PostgresArray()
        var types = PostgresArray()
        var subjects = PostgresArray()
        var bodies = PostgresArray()
        var times = PostgresArray()
        var rows = 0
        for event in events {
            for endpoint in event.endpoints {
                try ids.append(event.id)
                try endpoints.append(endpoint)
                try types.append(event.type)
                try subjects.append(event.subject)
                bodies.append(bytea: event.body)
                times.append(event.createdAtMs)
                rows += 1
            }
        }
        guard rows > 0 else { return }
        _ = try connection.executePrepared(
            insertMany,
            [
                .text(ids.literal), .text(endpoints.literal), .text(types.literal), .text(subjects.literal),
                .text(bodies.literal), .text(times.literal),
            ])
    }

    /// `OutboxQueries.insert` for rows given as one array per column (fixed text: prepared once).
    static let insertMany = """
        INSERT INTO webhook_outbox (event_id, endpoint, type, subject, body, created_at_ms, state, attempts, due_at_ms)
        SELECT e, ep, t, s, b, c, 'pending', 0, c
        FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bytea[], $6::int8[])
            WITH ORDINALITY AS v(e, ep, t, s, b, c, n)
        ORDER BY n
        ON CONFLICT (event_id, endpoint) DO NOTHING
        """

    /// `WebhookOutbox.appendOutboxEvents` in one transaction.
    public func appendOutboxEvents(_ events: [OutboxEvent]) throws(RecordsError) {
        guard events.contains(where: { !$0.endpoints.isEmpty }) else { return }
        try run { (connection) throws(RecordsError) in
            try connection.transaction { () throws(RecordsError) in try Self.appendOutbox(events, connection) }
        }
        commits.add(1, ordering: .relaxed)
    }

    /// `WebhookOutbox.dueWebhookDeliveries`.
    public func dueWebhookDeliveries(endpoint: String, nowMs: Int64, limit: Int) throws(RecordsError)
        -> [WebhookDelivery]
    {
        try OutboxQueries.checkLimit(limit)
        return try deliveries(o.due, [.text(endpoint), .int(nowMs), .int(Int64(limit))])
    }

    /// `WebhookOutbox.settleWebhookDelivery`.
    public func settleWebhookDelivery(seq: Int64, attempt: WebhookAttempt, nowMs: Int64) throws(RecordsError) -> Bool {
        let settled = try run { (connection) throws(RecordsError) -> Bool in
            try Self.settle(seq: seq, attempt: attempt, nowMs: nowMs, connection)
        }
        commits.add(1, ordering: .relaxed)
        return settled
    }

    /// Settles one attempt on `connection` (inside the caller's transaction, or alone).
    static func settle(seq: Int64, attempt: WebhookAttempt, nowMs: Int64, _ connection: PostgresConnection)
        throws(RecordsError) -> Bool
    {
        let q = OutboxQueries.postgres
        let result: PostgresResult
        switch attempt {
        case .delivered: result = try connection.executePrepared(q.delivered, [.int(seq), .int(nowMs)])
        case .retry(let dueAtMs, let error):
            result = try connection.executePrepared(q.retry, [.int(seq), .int(dueAtMs), .text(error)])
        case .failed(let error):
            result = try connection.executePrepared(q.failed, [.int(seq), .int(nowMs), .text(error)])
        }
        return result.affectedRows == 1
    }

    /// `WebhookOutbox.webhookDeliveries(state:limit:afterSeq:)`.
    public func webhookDeliveries(state: WebhookDelivery.State, limit: Int, afterSeq: Int64?) throws(RecordsError)
        -> [WebhookDelivery]
    {
        try OutboxQueries.checkLimit(limit)
        return try deliveries(o.byState, [.text(state.rawValue), .int(afterSeq ?? 0), .int(Int64(limit))])
    }

    /// `WebhookOutbox.webhookDeliveries(eventId:)`.
    public func webhookDeliveries(eventId: String) throws(RecordsError) -> [WebhookDelivery] {
        try deliveries(o.byEvent, [.text(eventId)])
    }

    /// `WebhookOutbox.redeliverWebhookEvent`.
    public func redeliverWebhookEvent(eventId: String, nowMs: Int64) throws(RecordsError) -> Int {
        let changed = try run { (connection) throws(RecordsError) -> Int in
            try connection.executePrepared(o.redeliver, [.text(eventId), .int(nowMs)]).affectedRows
        }
        commits.add(1, ordering: .relaxed)
        return changed
    }

    /// `WebhookOutbox.webhookOutboxStats`.
    public func webhookOutboxStats() throws(RecordsError) -> WebhookOutboxStats {
        try run { (connection) throws(RecordsError) in
            let pending = try connection.executePrepared(o.pendingCount, []).int64(0, 0)
            let failed = try connection.executePrepared(o.failedCount, []).int64(0, 0)
            let oldest = try connection.executePrepared(o.oldestPending, [])
            return WebhookOutboxStats(
                pending: Int(pending), oldestPendingCreatedAtMs: oldest.rowCount == 0 ? nil : try oldest.int64(0, 0),
                failed: Int(failed))
        }
    }

    /// `WebhookOutbox.pruneWebhookDeliveries`.
    public func pruneWebhookDeliveries(finishedBeforeMs beforeMs: Int64, limit: Int) throws(RecordsError) -> Int {
        try OutboxQueries.checkLimit(limit)
        let pruned = try run { (connection) throws(RecordsError) -> Int in
            try connection.executePrepared(o.prune, [.int(beforeMs), .int(Int64(limit))]).affectedRows
        }
        commits.add(1, ordering: .relaxed)
        return pruned
    }

    /// The deliveries `sql` reads with `values`.
    private func deliveries(_ sql: String, _ values: [SQLValue]) throws(RecordsError) -> [WebhookDelivery] {
        try run { (connection) throws(RecordsError) in
            let rows = try connection.executePrepared(sql, values)
            return try (0..<rows.rowCount).map { (row) throws(RecordsError) in
                guard let body = Hex.decode(rows.text(row, 5)) else {
                    throw .corrupt("a webhook body is not bytea hex")
                }
                return WebhookDelivery(
                    seq: try rows.int64(row, 0), eventId: rows.text(row, 1), endpoint: rows.text(row, 2),
                    type: rows.text(row, 3), subject: rows.text(row, 4), body: body,
                    createdAtMs: try rows.int64(row, 6), state: try OutboxQueries.state(rows.text(row, 7)),
                    attempts: Int(try rows.int64(row, 8)), dueAtMs: try rows.int64(row, 9),
                    lastError: rows.optionalText(row, 10), finishedAtMs: try rows.optionalInt64(row, 11))
            }
        }
    }
}
