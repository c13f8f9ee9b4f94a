/// One shared token bucket's consumption since an instance's last synchronisation (`RateBucketStore`).
public struct RateUsage: Sendable, Equatable {
    /// The bucket: the limit's name and the key it counts (`issue-user:42`).
    public let key: String
    /// Tokens this instance took since its last synchronisation of the key (0: only read it).
    public let consumed: Int64
    /// The limit's rate, tokens per minute.
    public let perMinute: Int64
    /// The bucket's capacity, tokens.
    public let burst: Int64

    /// One bucket's usage.
    public init(key: String, consumed: Int64, perMinute: Int64, burst: Int64) {
        self.key = key
        self.consumed = consumed
        self.perMinute = perMinute
        self.burst = burst
    }
}
