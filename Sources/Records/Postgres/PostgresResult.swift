import CPostgres

/// A libpq result, cleared in `deinit`.
final class PostgresResult {
    /// The `PGresult` handle.
    let handle: OpaquePointer

    /// Takes ownership of `handle`.
    init(_ handle: OpaquePointer) { self.handle = handle }

    deinit { PQclear(handle) }

    /// The number of rows.
    var rowCount: Int { Int(PQntuples(handle)) }

    /// The number of rows a command changed (`PQcmdTuples`), 0 when it does not say.
    var affectedRows: Int { PQcmdTuples(handle).flatMap { Int(String(cString: $0)) } ?? 0 }

    /// The text of a field ("" for NULL).
    func text(_ row: Int, _ column: Int) -> String {
        guard let value = PQgetvalue(handle, Int32(row), Int32(column)) else { return "" }
        let length = Int(PQgetlength(handle, Int32(row), Int32(column)))
        return value.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }

    /// The text of a field, or nil for NULL.
    func optionalText(_ row: Int, _ column: Int) -> String? {
        PQgetisnull(handle, Int32(row), Int32(column)) == 1 ? nil : text(row, column)
    }

    /// A BIGINT field.
    func int64(_ row: Int, _ column: Int) throws(RecordsError) -> Int64 {
        let text = text(row, column)
        guard let value = Int64(text) else { throw .corrupt("PostgreSQL returned '\(text)' for an integer column") }
        return value
    }

    /// A DOUBLE PRECISION field (PostgreSQL writes `Infinity`, `-Infinity` and `NaN` as Swift reads them).
    func double(_ row: Int, _ column: Int) throws(RecordsError) -> Double {
        let text = self.text(row, column)
        guard let value = Double(text) else { throw .corrupt("not a number: \(text.prefix(40))") }
        return value
    }

    /// A BIGINT field, or nil for NULL.
    func optionalInt64(_ row: Int, _ column: Int) throws(RecordsError) -> Int64? {
        PQgetisnull(handle, Int32(row), Int32(column)) == 1 ? nil : try int64(row, column)
    }
}
