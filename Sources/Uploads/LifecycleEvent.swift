/// What the lifecycle reports as it goes, for the operator's log: App writes each as one log line
/// (nothing here formats or writes logs).
public enum LifecycleEvent: Sendable, Equatable {
    /// A confirmation refused an upload whose first bytes are no image of an allowed format.
    case contentRefused(type: String, reason: String, size: Int64, owner: String)
    /// A confirmation refused an upload whose bytes are not the declared ones: its `algorithm`
    /// (`SHA-256`, `MD5`) digest is `actual`, not the `declared` one (both base64).
    case checksumRefused(type: String, algorithm: String, declared: String, actual: String, size: Int64, owner: String)
    /// The scanner settled a record: `outcome` `published`, or `rejected` with `reason` and `detail`.
    case scanSettled(recordId: String, type: String, outcome: String, reason: String?, detail: String?)
    /// A scan gave no verdict (clamd unreachable or slow, storage failing): tried again after `retryInMs`.
    case scanRetried(recordId: String, attempts: Int, retryInMs: Int64, error: String)
    /// A rejected record's object could not be deleted (the next pass tries again).
    case scanObjectKept(recordId: String, key: String, error: String)
    /// A replaced record's object could not be deleted yet; it stays in the pending deletions.
    case replacedObjectKept(error: String)
    /// The janitor's runner started (its passes run while `holder`, this process, holds the lease).
    case janitorStarted(
        intervalMs: Int, batchSize: Int, deleteUnconfirmedObjects: Bool, holder: String, leaseTtlMs: Int64)
    /// The janitor's runner stopped after `sweeps` sweeps.
    case janitorStopped(sweeps: Int)
    /// This process took the janitor's lease under `token` (`tookOver`: from a holder whose lease ran out).
    case janitorLeaseAcquired(holder: String, token: Int64, tookOver: Bool)
    /// This process lost the janitor's lease (taken over, or not renewed in time): its passes stopped.
    case janitorLeaseLost(holder: String, token: Int64)
    /// A call on the lease row failed (retried at the keeper's next tick).
    case janitorLeaseStoreFailed(error: String)
    /// A sweep's fenced write was refused (the lease lost): `intentsLeft` handled intents are left for
    /// the next holder, which finishes them.
    case janitorPassFencedOff(intentsLeft: Int)
    /// A sweep removed `intentsRemoved` expired intents and deleted `objectsDeleted` objects.
    case janitorSwept(intentsRemoved: Int, objectsDeleted: Int)
    /// A sweep of expired intents stopped on an error (the rest wait for the next sweep).
    case janitorPassStopped(error: String)
    /// A pass over the pending deletions deleted `objectsDeleted` replaced records' objects.
    case replacedObjectsDeleted(objectsDeleted: Int)
    /// A pass over the pending deletions stopped on an error.
    case replacedPassStopped(error: String)
    /// A pass of the multipart janitor stopped on an error (the rest wait for the next run).
    case multipartPassStopped(error: String)
    /// The multipart janitor aborted `count` uploads this server created and nobody completed.
    case multipartAborted(count: Int)
    /// A reconciler pass listed `examined` objects, recorded `recorded` (their events were lost) and
    /// deleted `removed` the janitor had settled.
    case reconciled(examined: Int, recorded: Int, removed: Int)
    /// A reconciler pass stopped on an error (it starts again from the beginning next time).
    case reconcilePassStopped(error: String)
    /// The event processor's thread started.
    case eventProcessorStarted(intervalMs: Int, recordDelayMs: Int)
    /// The event processor's thread stopped.
    case eventProcessorStopped
    /// A store event recorded an upload (`created`: this event made the record).
    case eventRecorded(source: String, key: String, created: Bool)
    /// A store event (or a whole delivery) could not be used, for good: `reason` is its metric label.
    case eventRejected(source: String, key: String?, reason: String)
    /// A delivery failed for now (storage or the database) and is due again later.
    case eventRetried(source: String, attempts: Int, error: String)
}

/// Where the lifecycle's events go.
public typealias LifecycleLog = @Sendable (LifecycleEvent) -> Void
