/// The newest-first, cursor-paged query behind `listRecords`, shared by the SQL stores.
enum ListQuery {
    /// The SQL and its parameter values for one page (of the records with `sha256` when given); asks for `limit + 1` rows so the caller can tell
    /// whether another page follows. `placeholder(n)` writes parameter n (`?n` for SQLite, `$n` for
    /// PostgreSQL).
    static func build(
        columns: String, ownerId: String, type: String?, limit: Int, after: RecordCursor?, sha256: String? = nil,
        placeholder: (Int) -> String
    ) -> (sql: String, values: [SQLValue]) {
        var values: [SQLValue] = [.text(ownerId)]
        var conditions = ["owner_id = \(placeholder(1))"]
        if let sha256 {
            // The partial index records_owner_sha256 (schema version 11).
            values.append(.text(sha256))
            conditions.append("sha256 = \(placeholder(values.count))")
        }
        if let type {
            values.append(.text(type))
            conditions.append("type = \(placeholder(values.count))")
        }
        if let after {
            values.append(.int(after.createdAtMs))
            values.append(.text(after.id))
            let first = values.count - 1
            conditions.append("(created_at_ms, id) < (\(placeholder(first)), \(placeholder(first + 1)))")
        }
        values.append(.int(Int64(limit) + 1))
        let sql =
            "SELECT \(columns) FROM records WHERE \(conditions.joined(separator: " AND ")) "
            + "ORDER BY created_at_ms DESC, id DESC LIMIT \(placeholder(values.count))"
        return (sql, values)
    }

    /// The page and the cursor to the next one from up to `limit + 1` rows.
    static func page(rows: [ImageRecord], limit: Int) -> (records: [ImageRecord], next: RecordCursor?) {
        guard rows.count > limit else { return (rows, nil) }
        let page = Array(rows.prefix(limit))
        return (page, page.last.map(RecordCursor.init(after:)))
    }
}
