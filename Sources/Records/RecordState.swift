/// Where a record is in its life (schema version 13, docs/scanning.md): a record of a type that scans
/// (`types.<T>.scan`) is made `scanning` and becomes `published` or `rejected` once; every other record is
/// `published` from the start.
public enum RecordState: String, Sendable, Equatable, CaseIterable {
    /// Readable: its object may be served.
    case published
    /// Waiting for (or in) its malware scan: it has no URL yet.
    case scanning
    /// Refused by its scan (`rejectionReason`): its object is deleted.
    case rejected

    /// The state stored as `text`; `.corrupt` for a value no version writes.
    static func stored(_ text: String) throws(RecordsError) -> RecordState {
        guard let state = RecordState(rawValue: text) else {
            throw .corrupt("a record in the unknown state '\(text.prefix(32))'")
        }
        return state
    }
}
