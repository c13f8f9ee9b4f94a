/// What one synchronisation of shared rate limits answered (`RateBucketStore.syncRateBuckets`).
public struct RateSyncResult: Sendable, Equatable {
    /// The instances that synchronised within the liveness window, this one included (at least 1).
    public let instances: Int
    /// Each bucket's tokens after the consumption was charged, by key (may be below zero: consumption
    /// let through beyond the limit is a debt the bucket pays back as it refills).
    public let tokens: [String: Double]

    /// A result.
    public init(instances: Int, tokens: [String: Double]) {
        self.instances = instances
        self.tokens = tokens
    }
}
