import JSON
import TestSupport

extension ServerProcess {
    /// The standard-error lines, each parsed as JSON (throws at the first line that is not).
    public func logEntries() throws -> [JSONValue] {
        try stderr.split(separator: "\n").map { line in
            do {
                return try JSONValue(parsing: Array(line.utf8))
            } catch {
                throw TestFailure("a log line is not JSON (\(error)): \(line)")
            }
        }
    }
}
