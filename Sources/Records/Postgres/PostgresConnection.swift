import CPostgres
import CPostgresLoader

#if canImport(Glibc)
    import Glibc
#endif

/// One libpq connection with the names of the statements prepared on it; closed in `deinit`.
///
/// Used by one thread at a time (the store hands it out through a `ConnectionPool`), which is why it may
/// be marked Sendable. Parameters are always sent separately from the SQL text (never interpolated).
final class PostgresConnection: @unchecked Sendable {
    /// The `PGconn` handle.
    private let handle: OpaquePointer
    /// The server, to scrub its password from messages.
    private let address: PostgresAddress
    /// Names of the statements prepared on this connection, by SQL text.
    private var prepared: [String: String] = [:]
    /// Whether fixed statements are prepared under a name (else sent unnamed with every call).
    private let namedStatements: Bool

    /// Connects to `address`, giving up after `connectTimeoutSeconds` (unless its URL sets its own).
    /// `statements` `.unnamed` sends nothing that outlives a transaction on the server connection (no
    /// named statement, no session `SET`), for a transaction-mode pooler.
    init(address: PostgresAddress, connectTimeoutSeconds: Int, statements: PostgresStatements = .named)
        throws(RecordsError)
    {
        self.address = address
        namedStatements = statements == .named
        // Parameters before `dbname` are defaults: the expanded URL overrides them.
        let keywords = ["connect_timeout", "application_name", "dbname"]
        let values = [String(max(2, connectTimeoutSeconds)), "presignd", address.connectionString]
        let connection = Self.withCStrings(keywords) { keywordPointers in
            Self.withCStrings(values) { valuePointers in PQconnectdbParams(keywordPointers, valuePointers, 1) }
        }
        guard presignd_libpq_available() != 0 else {
            let why = presignd_libpq_error().map { String(cString: $0) } ?? "unknown reason"
            throw .unavailable("libpq (libpq5) could not be loaded: \(why)")
        }
        guard let connection else { throw .unavailable("cannot allocate a PostgreSQL connection") }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = address.scrub(String(cString: PQerrorMessage(connection)))
            PQfinish(connection)
            throw .unavailable("cannot connect to PostgreSQL at \(address.redacted): \(message)")
        }
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        handle = connection
        // A reply must mean a durable commit: refuse a server default of `off` for this session (`local`,
        // `remote_write`, `on` and `remote_apply` all wait for the local WAL flush).
        if try execute("SHOW synchronous_commit").text(0, 0) == "off" {
            // Behind a transaction-mode pooler a session SET would land on whichever server connection
            // the pooler picked: refuse instead, and say how to fix the server's default.
            guard namedStatements else {
                throw .unavailable(
                    "synchronous_commit is off for this role or database and records.postgresStatements is unnamed "
                        + "(a pooler): set it on (ALTER ROLE … SET synchronous_commit = on)")
            }
            try execute("SET synchronous_commit = on")
        }
    }

    deinit { PQfinish(handle) }

    /// True when the connection can no longer be used (the server went away or closed it).
    var isBroken: Bool { PQstatus(handle) != CONNECTION_OK }

    /// Runs `sql` once with `values` (parsed each time: for statements whose text varies).
    @discardableResult
    func execute(_ sql: String, _ values: [SQLValue] = []) throws(RecordsError) -> PostgresResult {
        let result = try Self.withParameters(values) { (pointers) throws(RecordsError) in
            PQexecParams(handle, sql, Int32(pointers.count), nil, pointers, nil, nil, 0)
        }
        return try check(result, context: "execute")
    }

    /// Runs `sql` as a named prepared statement (prepared on first use on this connection), or unnamed
    /// when the connection was made with `.unnamed` statements.
    @discardableResult
    func executePrepared(_ sql: String, _ values: [SQLValue]) throws(RecordsError) -> PostgresResult {
        guard namedStatements else { return try execute(sql, values) }
        let name: String
        if let known = prepared[sql] {
            name = known
        } else {
            name = "presignd_\(prepared.count + 1)"
            _ = try check(PQprepare(handle, name, sql, Int32(values.count), nil), context: "prepare")
            prepared[sql] = name
        }
        let result = try Self.withParameters(values) { (pointers) throws(RecordsError) in
            PQexecPrepared(handle, name, Int32(pointers.count), pointers, nil, nil, 0)
        }
        return try check(result, context: "execute")
    }

    /// Runs `sql`, a `COPY … FROM STDIN`, with `rows` (in the format `sql` names) as its input; returns
    /// the rows the server says it copied. The connection is usable afterwards whatever happened (every
    /// result is read); an error is thrown as `check` would.
    @discardableResult
    func copyIn(_ sql: String, _ rows: [UInt8]) throws(RecordsError) -> Int {
        guard let start = PQexecParams(handle, sql, 0, nil, nil, nil, nil, 0) else {
            throw .unavailable("PostgreSQL copy: \(address.scrub(String(cString: PQerrorMessage(handle))))")
        }
        guard PQresultStatus(start) == PGRES_COPY_IN else {
            _ = try check(start, context: "copy")
            throw .unavailable("PostgreSQL copy: the server did not ask for the rows")
        }
        PQclear(start)
        let sent = rows.withUnsafeBufferPointer { buffer -> Bool in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                chars.isEmpty || PQputCopyData(handle, chars.baseAddress, Int32(chars.count)) == 1
            }
        }
        // Ending the copy with an error message makes the server abandon it (nothing is stored).
        let ended = PQputCopyEnd(handle, sent ? nil : "presignd could not send the rows") == 1
        // Every result must be read before the connection takes another command.
        var first: OpaquePointer?
        while let next = PQgetResult(handle) {
            if first == nil { first = next } else { PQclear(next) }
        }
        guard sent, ended else {
            if let first { PQclear(first) }
            throw .unavailable("PostgreSQL copy: \(address.scrub(String(cString: PQerrorMessage(handle))))")
        }
        return try check(first, context: "copy").affectedRows
    }

    /// Runs `body` between `BEGIN` and `COMMIT`, rolling back if it throws.
    func transaction<R>(_ body: () throws(RecordsError) -> R) throws(RecordsError) -> R {
        try execute("BEGIN")
        do throws(RecordsError) {
            let result = try body()
            let commit = try execute("COMMIT")
            // A transaction that failed inside answers COMMIT with ROLLBACK.
            guard let tag = PQcmdStatus(commit.handle), String(cString: tag) == "COMMIT" else {
                throw RecordsError.unavailable("PostgreSQL rolled the transaction back")
            }
            return result
        } catch {
            if !isBroken && PQtransactionStatus(handle) != PQTRANS_IDLE { _ = try? execute("ROLLBACK") }
            throw error
        }
    }

    /// The result if it succeeded, else the module's error (SQLSTATE class decides the case).
    private func check(_ result: OpaquePointer?, context: String) throws(RecordsError) -> PostgresResult {
        guard let result else {
            throw .unavailable("PostgreSQL \(context): \(address.scrub(String(cString: PQerrorMessage(handle))))")
        }
        let owned = PostgresResult(result)
        let status = PQresultStatus(result)
        if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK { return owned }
        let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
        let detail = PQresultErrorMessage(result).map { String(cString: $0) } ?? ""
        let message =
            "PostgreSQL \(context): \(address.scrub(detail.isEmpty ? String(cString: PQerrorMessage(handle)) : detail))"
            + (state.isEmpty ? "" : " (SQLSTATE \(state))")
        if state.hasPrefix("23") || state.hasPrefix("22") { throw .constraint(message) }
        if state == "XX001" || state == "XX002" { throw .corrupt(message) }
        throw .unavailable(message)
    }

    /// Calls `body` with NUL-terminated copies of `values` (nil for NULL), freed afterwards.
    private static func withParameters<R>(
        _ values: [SQLValue], _ body: ([UnsafePointer<CChar>?]) throws(RecordsError) -> R
    ) throws(RecordsError) -> R {
        var copies: [UnsafeMutablePointer<CChar>?] = []
        copies.reserveCapacity(values.count)
        defer { for copy in copies { free(copy) } }
        for value in values {
            switch value {
            case .null:
                copies.append(nil)
            case .int(let number):
                copies.append(strdup(String(number)))
            case .blob(let bytes):
                // bytea in the text format: "\\x" and two hex digits per byte.
                let digits = Array("0123456789abcdef".utf8)
                var hex: [UInt8] = Array("\\x".utf8)
                for byte in bytes { hex += [digits[Int(byte >> 4)], digits[Int(byte & 15)]] }
                copies.append(strdup(String(decoding: hex, as: UTF8.self)))
            case .text(let text):
                // A NUL byte would cut the C string short: its length tells (strlen is fast on long arrays).
                let copy = strdup(text)
                copies.append(copy)
                guard let copy, strlen(copy) == text.utf8.count else {
                    throw .constraint("PostgreSQL text cannot hold a NUL byte")
                }
            }
        }
        return try body(copies.map { $0.map { UnsafePointer($0) } })
    }

    /// Calls `body` with a C array of C strings for `strings`, ended by NULL.
    private static func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        let copies = strings.map { strdup($0) }
        defer { for copy in copies { free(copy) } }
        return body(copies.map { $0.map { UnsafePointer($0) } } + [nil])
    }
}
