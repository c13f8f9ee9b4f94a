/// What the lifecycle reports as it goes, for the operator's log: App writes each as one log line
/// (nothing here formats or writes logs).
public enum LifecycleEvent: Sendable, Equatable {
    /// A confirmation refused an upload whose first bytes are no image of an allowed format.
    case contentRefused(type: String, reason: String, size: Int64, owner: String)
    /// A replaced record's object could not be deleted yet; it stays in the pending deletions.
    case replacedObjectKept(error: String)
    /// The janitor's thread started.
    case janitorStarted(intervalMs: Int, batchSize: Int, deleteUnconfirmedObjects: Bool)
    /// The janitor's thread stopped after `sweeps` sweeps.
    case janitorStopped(sweeps: Int)
    /// A sweep removed `intentsRemoved` expired intents and deleted `objectsDeleted` objects.
    case janitorSwept(intentsRemoved: Int, objectsDeleted: Int)
    /// A sweep of expired intents stopped on an error (the rest wait for the next sweep).
    case janitorPassStopped(error: String)
    /// A pass over the pending deletions deleted `objectsDeleted` replaced records' objects.
    case replacedObjectsDeleted(objectsDeleted: Int)
    /// A pass over the pending deletions stopped on an error.
    case replacedPassStopped(error: String)
    /// A pass of the multipart janitor over `prefix` stopped on an error.
    case multipartPassStopped(prefix: String, error: String)
}

/// Where the lifecycle's events go.
public typealias LifecycleLog = @Sendable (LifecycleEvent) -> Void
