/// The SQL of the webhook outbox (schema version 12), in both dialects: the same statements with SQLite's
/// `?n` or PostgreSQL's `$n` placeholders.
///
/// Indexes (`SQLiteSchema`, `PostgresSchema`): `(event_id, endpoint)` unique (a second write of an event is
/// nothing), `(endpoint, due_at_ms, seq)` and `(endpoint, subject, seq)` over pending rows (the
/// deliverer's take and its per-subject order), `(state, seq)` (the operator's list, the counts), and
/// `(finished_at_ms)` over finished rows (the prune).
struct OutboxQueries {
    /// The columns of `webhook_outbox` a delivery is read from, in the order the row readers expect.
    static func columns(body: String) -> String {
        "seq, event_id, endpoint, type, subject, \(body), created_at_ms, state, attempts, due_at_ms, last_error, finished_at_ms"
    }

    /// Writes one delivery (?1 event id, ?2 endpoint, ?3 type, ?4 subject, ?5 body, ?6 created at), due at
    /// once; nothing when the endpoint has the event already.
    let insert: String
    /// The due deliveries of an endpoint (?1 endpoint, ?2 now, ?3 limit), each the first pending one of its
    /// subject.
    let due: String
    /// Marks a pending delivery delivered (?1 seq, ?2 now).
    let delivered: String
    /// Makes a pending delivery due again after a failed attempt (?1 seq, ?2 due at, ?3 error).
    let retry: String
    /// Marks a pending delivery failed for good (?1 seq, ?2 now, ?3 error).
    let failed: String
    /// Deliveries in a state (?1 state, ?2 after seq, ?3 limit), oldest first.
    let byState: String
    /// The deliveries of one event (?1 event id).
    let byEvent: String
    /// Makes every delivery of an event pending and due again (?1 event id, ?2 now).
    let redeliver: String
    /// Pending deliveries counted.
    let pendingCount: String
    /// Failed deliveries counted.
    let failedCount: String
    /// The event time of the oldest pending delivery.
    let oldestPending: String
    /// Removes finished deliveries finished before ?1, at most ?2.
    let prune: String

    /// The statements with placeholder `n` written by `p`; `body` reads the body column (PostgreSQL sends
    /// bytea as hex text); `subjectIndex` names the index the per-subject check must use where the
    /// planner has no statistics to find it (SQLite: without them it chose `(state, seq)` and scanned
    /// every earlier pending row for each candidate, a minute per take with 20,000 pending).
    init(_ p: (Int) -> String, body: String, subjectIndex: String) {
        let columns = Self.columns(body: body)
        insert = """
            INSERT INTO webhook_outbox (event_id, endpoint, type, subject, body, created_at_ms, state, attempts, due_at_ms)
            VALUES (\(p(1)), \(p(2)), \(p(3)), \(p(4)), \(p(5)), \(p(6)), 'pending', 0, \(p(6)))
            ON CONFLICT (event_id, endpoint) DO NOTHING
            """
        due = """
            SELECT \(columns) FROM webhook_outbox AS d
            WHERE d.endpoint = \(p(1)) AND d.state = 'pending' AND d.due_at_ms <= \(p(2))
            AND NOT EXISTS (SELECT 1 FROM webhook_outbox AS e\(subjectIndex) WHERE e.endpoint = d.endpoint AND e.subject = d.subject
            AND e.state = 'pending' AND e.seq < d.seq)
            ORDER BY d.due_at_ms, d.seq LIMIT \(p(3))
            """
        delivered = """
            UPDATE webhook_outbox SET state = 'delivered', attempts = attempts + 1, last_error = NULL,
            finished_at_ms = \(p(2)) WHERE seq = \(p(1)) AND state = 'pending'
            """
        retry = """
            UPDATE webhook_outbox SET attempts = attempts + 1, due_at_ms = \(p(2)), last_error = \(p(3))
            WHERE seq = \(p(1)) AND state = 'pending'
            """
        failed = """
            UPDATE webhook_outbox SET state = 'failed', attempts = attempts + 1, last_error = \(p(3)),
            finished_at_ms = \(p(2)) WHERE seq = \(p(1)) AND state = 'pending'
            """
        byState = """
            SELECT \(columns) FROM webhook_outbox WHERE state = \(p(1)) AND seq > \(p(2)) ORDER BY seq LIMIT \(p(3))
            """
        byEvent = "SELECT \(columns) FROM webhook_outbox WHERE event_id = \(p(1)) ORDER BY seq"
        redeliver = """
            UPDATE webhook_outbox SET state = 'pending', attempts = 0, due_at_ms = \(p(2)), last_error = NULL,
            finished_at_ms = NULL WHERE event_id = \(p(1))
            """
        pendingCount = "SELECT count(*) FROM webhook_outbox WHERE state = 'pending'"
        failedCount = "SELECT count(*) FROM webhook_outbox WHERE state = 'failed'"
        oldestPending = "SELECT created_at_ms FROM webhook_outbox WHERE state = 'pending' ORDER BY seq LIMIT 1"
        prune = """
            DELETE FROM webhook_outbox WHERE seq IN (SELECT seq FROM webhook_outbox
            WHERE state <> 'pending' AND finished_at_ms < \(p(1)) ORDER BY finished_at_ms LIMIT \(p(2)))
            """
    }

    /// Marks the pending deliveries of an array of seqs delivered ($1 `bigint[]` literal, $2 now).
    static let postgresDeliveredMany = """
        UPDATE webhook_outbox SET state = 'delivered', attempts = attempts + 1, last_error = NULL,
        finished_at_ms = $2 WHERE seq = ANY($1::bigint[]) AND state = 'pending'
        """

    /// SQLite's statements.
    static let sqlite = OutboxQueries(
        { "?\($0)" }, body: "body", subjectIndex: " INDEXED BY webhook_outbox_subject")
    /// PostgreSQL's statements.
    static let postgres = OutboxQueries({ "$\($0)" }, body: "encode(body, 'hex')", subjectIndex: "")

    /// The rows `event` writes: its values for `insert`, one per endpoint.
    static func rows(of event: OutboxEvent) -> [[SQLValue]] {
        event.endpoints.map { endpoint in
            [
                .text(event.id), .text(endpoint), .text(event.type), .text(event.subject), .blob(event.body),
                .int(event.createdAtMs),
            ]
        }
    }

    /// The delivery state of stored text (an unknown one is corrupt).
    static func state(_ text: String) throws(RecordsError) -> WebhookDelivery.State {
        guard let state = WebhookDelivery.State(rawValue: text) else {
            throw .corrupt("a webhook delivery in the unknown state '\(text.prefix(32))'")
        }
        return state
    }

    /// The checks of the limits every store applies to a list or a take.
    static func checkLimit(_ limit: Int) throws(RecordsError) {
        try RecordStoreLimits.checkBatchLimit(limit)
    }
}
