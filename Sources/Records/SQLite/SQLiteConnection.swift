import CSQLite

#if canImport(Glibc)
    import Glibc
#endif

/// One SQLite connection with its cache of prepared statements; closed in `deinit`.
///
/// Opened without SQLite's own mutex (`SQLITE_OPEN_NOMUTEX`): the store hands each connection to one
/// thread at a time (through a `ConnectionPool`), which is why it may be marked Sendable.
final class SQLiteConnection: @unchecked Sendable {
    /// The connection handle.
    let handle: OpaquePointer
    /// Prepared statements by SQL text, kept for the life of the connection.
    private var statements: [String: SQLiteStatement] = [:]
    /// Prepared statements by a number the caller gives (long texts built per size: `statement(number:)`).
    private var numberedStatements: [Int: SQLiteStatement] = [:]

    /// Opens (creating if `create`) the database file at `path`, with a page cache of `cacheKiB`.
    init(path: String, create: Bool, readOnly: Bool, busyTimeoutMs: Int, cacheKiB: Int = 2048) throws(RecordsError) {
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_READWRITE
        if create { flags |= SQLITE_OPEN_CREATE }
        var database: OpaquePointer?
        let code = sqlite3_open_v2(path, &database, flags, nil)
        guard code == SQLITE_OK, let database else {
            let message = database.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_close_v2(database)
            let hint = (code & 0xff) == SQLITE_CANTOPEN ? Self.openFailureHint(path: path).map { ": \($0)" } ?? "" : ""
            throw .unavailable("cannot open SQLite database \(path): \(message)\(hint)")
        }
        handle = database
        sqlite3_extended_result_codes(database, 1)
        sqlite3_busy_timeout(database, Int32(clamping: busyTimeoutMs))
        if readOnly { try execute("PRAGMA query_only = ON") }
        try execute("PRAGMA foreign_keys = ON")
        try execute("PRAGMA synchronous = FULL")
        // A negative cache_size is in KiB.
        try execute("PRAGMA cache_size = -\(max(64, cacheKiB))")
        // Statement journals (the pages a multi-row statement changed, kept to undo it alone) stay in
        // memory: past 64 KiB SQLite would write them to a temporary file, which an upsert of rows at
        // random places (client-chosen keys) reaches in every statement.
        try execute("PRAGMA temp_store = MEMORY")
    }

    /// Whether `synchronous` is FULL (as opened), else NORMAL.
    private(set) var synchronousIsFull = true

    /// Sets `synchronous` to FULL or NORMAL unless it already is: SQLite parses a PRAGMA again at every
    /// run (about 13,000 instructions each), which cost the intent writer two of them per commit when it
    /// switched to NORMAL and back around every intent batch.
    func setSynchronous(full: Bool) throws(RecordsError) {
        guard full != synchronousIsFull else { return }
        try execute(full ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")
        synchronousIsFull = full
    }

    deinit {
        statements.removeAll()
        numberedStatements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs SQL without parameters or results (pragmas, DDL, transaction control).
    func execute(_ sql: String) throws(RecordsError) {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        if let message { sqlite3_free(message) }
        guard code == SQLITE_OK else { throw Self.error(code: code, database: handle, context: "exec") }
    }

    /// The first column of the first row of `sql`, as text (for pragmas that answer).
    func scalarText(_ sql: String) throws(RecordsError) -> String? {
        let statement = try self.statement(sql)
        try statement.bind([])
        defer { statement.finish() }
        return try statement.step() ? statement.optionalText(0) : nil
    }

    /// The cached prepared statement for `sql`.
    func statement(_ sql: String) throws(RecordsError) -> SQLiteStatement {
        if let cached = statements[sql] { return cached }
        let statement = try SQLiteStatement(database: handle, sql: sql)
        statements[sql] = statement
        return statement
    }

    /// The cached prepared statement the caller numbers `number`, prepared from `sql()` the first time:
    /// for long texts built per batch size, which are then neither built nor hashed again.
    func statement(number: Int, _ sql: () -> String) throws(RecordsError) -> SQLiteStatement {
        if let cached = numberedStatements[number] { return cached }
        let statement = try SQLiteStatement(database: handle, sql: sql())
        numberedStatements[number] = statement
        return statement
    }

    /// Runs `sql` with `values`; returns the number of rows it changed.
    @discardableResult
    func run(_ sql: String, _ values: [SQLValue]) throws(RecordsError) -> Int {
        let statement = try self.statement(sql)
        try statement.bind(values)
        defer { statement.finish() }
        while try statement.step() {}
        return Int(sqlite3_changes(handle))
    }

    /// The rowid of the last row this connection inserted.
    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Runs the query `sql` with `values` and maps each row.
    func query<T>(_ sql: String, _ values: [SQLValue], row: (SQLiteStatement) throws(RecordsError) -> T)
        throws(RecordsError) -> [T]
    {
        let statement = try self.statement(sql)
        try statement.bind(values)
        defer { statement.finish() }
        var rows: [T] = []
        while try statement.step() { rows.append(try row(statement)) }
        return rows
    }

    /// Runs `body` inside `BEGIN IMMEDIATE` ... `COMMIT`, rolling back if it throws or the commit fails.
    /// BEGIN and COMMIT are prepared once, like every statement (the intent writer runs many small
    /// transactions; parsing them each time cost more than the batch's own insert).
    func transaction<R>(_ body: () throws(RecordsError) -> R) throws(RecordsError) -> R {
        try run("BEGIN IMMEDIATE", [])
        do {
            let result = try body()
            try run("COMMIT", [])
            return result
        } catch {
            if sqlite3_get_autocommit(handle) == 0 { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// The module's error for an SQLite result code, with SQLite's message.
    static func error(code: Int32, database: OpaquePointer?, context: String) -> RecordsError {
        let message = database.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
        let text = "SQLite \(context): \(message) (code \(code))"
        switch code & 0xFF {
        case SQLITE_CONSTRAINT, SQLITE_MISMATCH, SQLITE_TOOBIG: return .constraint(text)
        case SQLITE_CORRUPT, SQLITE_NOTADB, SQLITE_FORMAT: return .corrupt(text)
        default: return .unavailable(text)
        }
    }
}
