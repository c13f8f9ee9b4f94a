/// What `LeaseStore.acquireLease` found.
public enum LeaseOutcome: Sendable, Equatable {
    /// The caller holds the lease now (`tookOver`: from another holder whose lease had run out, under a
    /// new token; false when it was free or already the caller's).
    case acquired(Lease, tookOver: Bool)
    /// Another holder's lease has not run out.
    case held(Lease)
}
