/// Bounds that every store enforces the same way.
public enum RecordStoreLimits {
    /// The largest page `listRecords` returns.
    public static let maxListLimit = 1000

    /// Throws `.invalidArgument` unless `limit` is in `1...maxListLimit`.
    package static func checkListLimit(_ limit: Int) throws(RecordsError) {
        guard limit >= 1 && limit <= maxListLimit else {
            throw .invalidArgument("list limit \(limit) is outside 1...\(maxListLimit)")
        }
    }

    /// Throws `.invalidArgument` unless `limit` is at least 1.
    package static func checkBatchLimit(_ limit: Int) throws(RecordsError) {
        guard limit >= 1 else { throw .invalidArgument("batch limit \(limit) is below 1") }
    }
}
