import CPostgres
import Config

extension PostgresURL {
    /// Checks the URL with libpq's own parser; throws `.invalidURL` (without the password) when libpq
    /// refuses it.
    func checkWithLibpq() throws(RecordsError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(connectionString, &errorMessage) else {
            let message = errorMessage.map { String(cString: $0) } ?? "unparseable"
            if let errorMessage { PQfreemem(errorMessage) }
            throw .invalidURL("PostgreSQL URL \(redacted): \(scrub(message))")
        }
        PQconninfoFree(options)
    }
}
