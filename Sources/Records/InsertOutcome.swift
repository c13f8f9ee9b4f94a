/// What inserting one record did.
public enum InsertOutcome: Sendable, Equatable {
    /// The record is new and now durable.
    case inserted(ImageRecord)
    /// A record with the same `imageKey` was already stored: this is the stored one. The caller decides
    /// between an idempotent 200 (same owner) and a 409 (another owner).
    case existing(ImageRecord)

    /// The record that is stored for the key, whichever case this is.
    public var record: ImageRecord {
        switch self {
        case .inserted(let record), .existing(let record): return record
        }
    }

    /// The outcome of inserting `record` when `stored` already holds its key: `.inserted` when the stored
    /// record is this very insert (the same id: ids are new UUIDs, so only a retry whose first attempt
    /// landed, its acknowledgement lost, gets here), else `.existing`.
    package static func alreadyStored(_ stored: ImageRecord, inserting record: ImageRecord) -> InsertOutcome {
        stored.id == record.id ? .inserted(stored) : .existing(stored)
    }

    /// True when this insert created the record.
    public var isInserted: Bool {
        if case .inserted = self { return true }
        return false
    }
}
