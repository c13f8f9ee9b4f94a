/// The statements of the scan queue (schema version 13) in one dialect: SQLite's `?N` or PostgreSQL's
/// `$N` placeholders; the SQL is otherwise the same.
struct ScanQueries: Sendable {
    /// The due `scanning` records: `recordColumns`, then attempts, due time and last error.
    let due: String
    /// Publishes a scanning record (`id`, object key), returning it.
    let publish: String
    /// Rejects a scanning record (`id`, reason, detail), returning it.
    let reject: String
    /// Puts a scanning record's next scan off (`id`, due time, error), returning it.
    let retry: String
    /// How many records are scanning.
    let count: String
    /// When the oldest scanning record was made.
    let oldest: String

    /// The statements with placeholders made by `p` (1-based).
    init(_ p: (Int) -> String) {
        let returning = "RETURNING \(Schema.recordColumns)"
        due = """
            SELECT \(Schema.recordColumns), scan_attempts, scan_due_ms, scan_error FROM records
            WHERE state = 'scanning' AND scan_due_ms <= \(p(1)) ORDER BY scan_due_ms, created_at_ms LIMIT \(p(2))
            """
        publish = """
            UPDATE records SET state = 'published', object_key = \(p(2)), publish_key = NULL, scan_error = NULL
            WHERE id = \(p(1)) AND state = 'scanning' \(returning)
            """
        reject = """
            UPDATE records SET state = 'rejected', state_reason = \(p(2)), state_detail = \(p(3)), publish_key = NULL,
                scan_error = NULL
            WHERE id = \(p(1)) AND state = 'scanning' \(returning)
            """
        retry = """
            UPDATE records SET scan_attempts = scan_attempts + 1, scan_due_ms = \(p(2)), scan_error = \(p(3))
            WHERE id = \(p(1)) AND state = 'scanning' \(returning)
            """
        count = "SELECT count(*) FROM records WHERE state = 'scanning'"
        oldest = "SELECT min(created_at_ms) FROM records WHERE state = 'scanning'"
    }

    /// SQLite's.
    static let sqlite = ScanQueries { "?\($0)" }
    /// PostgreSQL's.
    static let postgres = ScanQueries { "$\($0)" }

    /// The statement and values of `settlement` for record `id`.
    func statement(id: String, _ settlement: ScanSettlement) -> (sql: String, values: [SQLValue]) {
        switch settlement {
        case .published(let objectKey): (publish, [.text(id), .text(objectKey)])
        case .rejected(let reason, let detail): (reject, [.text(id), .text(reason), .text(detail)])
        case .retry(let dueAtMs, let error): (retry, [.text(id), .int(dueAtMs), .text(error)])
        }
    }
}
