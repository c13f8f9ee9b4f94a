/// The outcome of a write fenced by a lease (`LeaseStore.fenced`).
public enum LeaseFenced<Value: Sendable>: Sendable {
    /// The lease still held when the transaction began, and the writes are committed.
    case done(Value)
    /// The lease was lost (taken over under a newer token, released, or run out): nothing was written.
    /// The lease as stored, if any.
    case lost(Lease?)
}
