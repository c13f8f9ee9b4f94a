extension RecordsConfig: CustomStringConvertible, CustomReflectable {
    /// The settings with the URL's password redacted.
    public var description: String {
        "RecordsConfig(url: \(location.redacted), intentBatchSize: \(intentBatchSize), "
            + "groupCommitMaxBatch: \(groupCommitMaxBatch), poolSize: \(poolSize), "
            + "janitorIntervalMs: \(janitorIntervalMs), janitorBatchSize: \(janitorBatchSize), "
            + "intentQueueLimit: \(intentQueueLimit), "
            + "intentCommitTimeoutMs: \(intentCommitTimeoutMs), intentWriterLanes: \(intentWriterLanes), "
            + "deleteUnconfirmedObjects: \(deleteUnconfirmedObjects), busyTimeoutMs: \(busyTimeoutMs))"
    }

    /// A mirror whose `url` child is redacted, so `dump` never shows the password.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "url": location.redacted, "intentBatchSize": intentBatchSize,
                "groupCommitMaxBatch": groupCommitMaxBatch, "poolSize": poolSize,
                "janitorIntervalMs": janitorIntervalMs, "janitorBatchSize": janitorBatchSize,
                "intentQueueLimit": intentQueueLimit,
                "intentCommitTimeoutMs": intentCommitTimeoutMs, "intentWriterLanes": intentWriterLanes,
                "deleteUnconfirmedObjects": deleteUnconfirmedObjects, "busyTimeoutMs": busyTimeoutMs,
            ], displayStyle: .struct)
    }
}
