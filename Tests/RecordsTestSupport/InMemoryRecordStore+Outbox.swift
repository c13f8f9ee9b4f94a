import Records

extension InMemoryRecordStore: WebhookOutbox {
    /// Writes `events` into `state` (inside the caller's lock): the one place every change that reports an
    /// event writes it.
    static func appendOutbox(_ events: [OutboxEvent], _ state: inout State) {
        for event in events {
            for endpoint in event.endpoints {
                let key = OutboxKey(eventId: event.id, endpoint: endpoint)
                guard state.outboxKeys[key] == nil else { continue }
                state.lastSeq += 1
                state.outboxKeys[key] = state.lastSeq
                state.outbox[state.lastSeq] = WebhookDelivery(
                    seq: state.lastSeq, eventId: event.id, endpoint: endpoint, type: event.type,
                    subject: event.subject, body: event.body, createdAtMs: event.createdAtMs, state: .pending,
                    attempts: 0, dueAtMs: event.createdAtMs)
            }
        }
    }

    /// Settles one attempt in `state`; false when the delivery is not pending.
    static func settle(seq: Int64, attempt: WebhookAttempt, nowMs: Int64, _ state: inout State) -> Bool {
        guard var delivery = state.outbox[seq], delivery.state == .pending else { return false }
        delivery.attempts += 1
        switch attempt {
        case .delivered:
            delivery.state = .delivered
            delivery.lastError = nil
            delivery.finishedAtMs = nowMs
        case .retry(let dueAtMs, let error):
            delivery.dueAtMs = dueAtMs
            delivery.lastError = error
        case .failed(let error):
            delivery.state = .failed
            delivery.lastError = error
            delivery.finishedAtMs = nowMs
        }
        state.outbox[seq] = delivery
        return true
    }

    /// `WebhookOutbox.appendOutboxEvents`.
    public func appendOutboxEvents(_ events: [OutboxEvent]) throws(RecordsError) {
        guard events.contains(where: { !$0.endpoints.isEmpty }) else { return }
        state.withLock { state in Self.appendOutbox(events, &state) }
        commits.add(1, ordering: .relaxed)
    }

    /// `WebhookOutbox.dueWebhookDeliveries`.
    public func dueWebhookDeliveries(endpoint: String, nowMs: Int64, limit: Int) throws(RecordsError)
        -> [WebhookDelivery]
    {
        try RecordStoreLimits.checkBatchLimit(limit)
        return state.withLock { state in
            let pending = state.outbox.values.filter { $0.endpoint == endpoint && $0.state == .pending }
            var first: [String: Int64] = [:]
            for delivery in pending { first[delivery.subject] = min(first[delivery.subject] ?? .max, delivery.seq) }
            let due = pending.filter { $0.dueAtMs <= nowMs && first[$0.subject] == $0.seq }
            return Array(due.sorted { ($0.dueAtMs, $0.seq) < ($1.dueAtMs, $1.seq) }.prefix(limit))
        }
    }

    /// `WebhookOutbox.settleWebhookDelivery`.
    public func settleWebhookDelivery(seq: Int64, attempt: WebhookAttempt, nowMs: Int64) throws(RecordsError) -> Bool {
        state.withLock { state in Self.settle(seq: seq, attempt: attempt, nowMs: nowMs, &state) }
    }

    /// `WebhookOutbox.webhookDeliveries(state:limit:afterSeq:)`.
    public func webhookDeliveries(state wanted: WebhookDelivery.State, limit: Int, afterSeq: Int64?)
        throws(RecordsError) -> [WebhookDelivery]
    {
        try RecordStoreLimits.checkBatchLimit(limit)
        return state.withLock { state in
            Array(
                state.outbox.values.filter { $0.state == wanted && $0.seq > (afterSeq ?? 0) }.sorted { $0.seq < $1.seq }
                    .prefix(limit))
        }
    }

    /// `WebhookOutbox.webhookDeliveries(eventId:)`.
    public func webhookDeliveries(eventId: String) throws(RecordsError) -> [WebhookDelivery] {
        state.withLock { state in state.outbox.values.filter { $0.eventId == eventId }.sorted { $0.seq < $1.seq } }
    }

    /// `WebhookOutbox.redeliverWebhookEvent`.
    public func redeliverWebhookEvent(eventId: String, nowMs: Int64) throws(RecordsError) -> Int {
        state.withLock { state in
            var changed = 0
            for (seq, var delivery) in state.outbox where delivery.eventId == eventId {
                delivery.state = .pending
                delivery.attempts = 0
                delivery.dueAtMs = nowMs
                delivery.lastError = nil
                delivery.finishedAtMs = nil
                state.outbox[seq] = delivery
                changed += 1
            }
            return changed
        }
    }

    /// `WebhookOutbox.webhookOutboxStats`.
    public func webhookOutboxStats() throws(RecordsError) -> WebhookOutboxStats {
        state.withLock { state in
            let pending = state.outbox.values.filter { $0.state == .pending }
            return WebhookOutboxStats(
                pending: pending.count, oldestPendingCreatedAtMs: pending.min { $0.seq < $1.seq }?.createdAtMs,
                failed: state.outbox.values.filter { $0.state == .failed }.count)
        }
    }

    /// `WebhookOutbox.pruneWebhookDeliveries`.
    public func pruneWebhookDeliveries(finishedBeforeMs beforeMs: Int64, limit: Int) throws(RecordsError) -> Int {
        try RecordStoreLimits.checkBatchLimit(limit)
        return state.withLock { state in
            let old = state.outbox.values.filter { $0.state != .pending && ($0.finishedAtMs ?? .max) < beforeMs }
                .sorted { ($0.finishedAtMs ?? 0, $0.seq) < ($1.finishedAtMs ?? 0, $1.seq) }.prefix(limit)
            for delivery in old {
                state.outbox[delivery.seq] = nil
                state.outboxKeys[OutboxKey(eventId: delivery.eventId, endpoint: delivery.endpoint)] = nil
            }
            return old.count
        }
    }
}
