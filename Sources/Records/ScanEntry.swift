/// A `scanning` record as the scan queue holds it: the record, how many scans of it did not finish, and
/// when it is next due (`ScanQueue.dueScans`).
public struct ScanEntry: Sendable, Equatable {
    /// The record (state `scanning`).
    public var record: ImageRecord
    /// Scans of it that ended in `.retry`.
    public var attempts: Int
    /// When it is due (epoch ms): 0 until its first retry.
    public var dueAtMs: Int64
    /// The last retry's error, if any.
    public var lastError: String?

    /// An entry from its fields.
    public init(record: ImageRecord, attempts: Int, dueAtMs: Int64, lastError: String?) {
        self.record = record
        self.attempts = attempts
        self.dueAtMs = dueAtMs
        self.lastError = lastError
    }
}
