import CSQLite

/// A value bound to a statement parameter.
enum SQLValue: Sendable, Equatable {
    /// A text value, bound byte for byte.
    case text(String)
    /// A 64-bit integer.
    case int(Int64)
    /// SQL NULL.
    case null
    /// A blob, bound byte for byte.
    case blob([UInt8])

    /// `.text(value)`, or `.null` when `value` is nil.
    static func optionalText(_ value: String?) -> SQLValue { value.map { .text($0) } ?? .null }

    /// `.int(value)`, or `.null` when `value` is nil.
    static func optionalInt(_ value: Int64?) -> SQLValue { value.map { .int($0) } ?? .null }
}

/// A prepared SQLite statement, owned and finalized by this object; used by one thread at a time.
final class SQLiteStatement {
    /// The statement handle.
    let handle: OpaquePointer
    /// The connection's handle, for error messages.
    private let database: OpaquePointer

    /// Prepares `sql` on `database`.
    init(database: OpaquePointer, sql: String) throws(RecordsError) {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(database, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            throw SQLiteConnection.error(code: code, database: database, context: "prepare")
        }
        self.handle = statement
        self.database = database
    }

    deinit { sqlite3_finalize(handle) }

    /// Binds `values` to parameters 1...n, after clearing the previous run.
    func bind(_ values: [SQLValue]) throws(RecordsError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .null:
                code = sqlite3_bind_null(handle, index)
            case .int(let number):
                code = sqlite3_bind_int64(handle, index, number)
            case .blob(let bytes):
                code = bytes.withUnsafeBytes { raw in
                    // A zero-length blob still needs an address; SQLite binds NULL for a nil pointer.
                    guard let start = raw.baseAddress, raw.count > 0 else {
                        return sqlite3_bind_zeroblob(handle, index, 0)
                    }
                    return sqlite3_bind_blob(handle, index, start, Int32(raw.count), presignd_sqlite_transient())
                }
            case .text(let text):
                var text = text
                code = text.withUTF8 { bytes in
                    bytes.withMemoryRebound(to: CChar.self) { chars in
                        // An empty buffer may have no address, and SQLite binds NULL for a nil pointer.
                        guard let start = chars.baseAddress, chars.count > 0 else {
                            return sqlite3_bind_text(handle, index, "", 0, presignd_sqlite_transient())
                        }
                        return sqlite3_bind_text(handle, index, start, Int32(chars.count), presignd_sqlite_transient())
                    }
                }
            }
            guard code == SQLITE_OK else {
                throw SQLiteConnection.error(code: code, database: database, context: "bind")
            }
        }
    }

    /// Steps once: true when a row is ready, false when the statement is done.
    func step() throws(RecordsError) -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = SQLiteConnection.error(code: code, database: database, context: "step")
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Resets the statement so it holds no lock and no bound text.
    func finish() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// The text of column `index` of the current row ("" for NULL).
    func text(_ index: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// The text of column `index`, or nil for NULL.
    func optionalText(_ index: Int32) -> String? {
        sqlite3_column_type(handle, index) == SQLITE_NULL ? nil : text(index)
    }

    /// Calls `body` with the bytes of blob column `index` (empty for NULL), valid only during the call.
    func withBlob<R>(_ index: Int32, _ body: (UnsafeRawBufferPointer) throws(RecordsError) -> R) throws(RecordsError)
        -> R
    {
        let start = sqlite3_column_blob(handle, index)
        let count = Int(sqlite3_column_bytes(handle, index))
        return try body(UnsafeRawBufferPointer(start: count > 0 ? start : nil, count: count))
    }

    /// The integer of column `index`.
    func int64(_ index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    /// The floating-point number of column `index`.
    func double(_ index: Int32) -> Double {
        sqlite3_column_double(handle, index)
    }

    /// The integer of column `index`, or nil for NULL.
    func optionalInt64(_ index: Int32) -> Int64? {
        sqlite3_column_type(handle, index) == SQLITE_NULL ? nil : int64(index)
    }
}
