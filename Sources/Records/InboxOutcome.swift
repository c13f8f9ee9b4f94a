/// How a processor finished with an inbox entry (`EventInbox.finishEvent`).
public enum InboxOutcome: Sendable, Equatable {
    /// Processed.
    case done
    /// Refused for good, with the reason counted in the metrics (`unknown-key`, `malformed-record`).
    case rejected(reason: String)
    /// Failed for now (storage or the database unavailable): taken again from `dueAtMs` on.
    case retry(dueAtMs: Int64, reason: String)
}
