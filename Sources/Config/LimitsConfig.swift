/// The `limits` section: token-bucket rate limits per user and per client address.
///
/// Each limit is a sustained rate per minute; a bucket holds `burst` seconds' worth of its rate
/// (`capacity(perMinute:)`), so a quiet client may send that many requests at once, then the rate.
public struct LimitsConfig: Sendable, Equatable {
    /// Whether rate limits apply at all.
    public var enabled: Bool
    /// Upload-URL requests per minute per authenticated caller.
    public var issuePerUserPerMinute: Int
    /// Upload-URL requests per minute per client address.
    public var issuePerAddressPerMinute: Int
    /// Confirmations and record reads per minute per authenticated caller.
    public var confirmPerUserPerMinute: Int
    /// Confirmations and record reads per minute per client address.
    public var confirmPerAddressPerMinute: Int
    /// Bucket size, in seconds of refill at the limit's rate.
    public var burst: Int
    /// With a PostgreSQL store the buckets are shared by every instance: how often (ms) each instance
    /// sends what it let through and reads the shared buckets back.
    public var syncIntervalMs: Int = 100
    /// Whether the client address is the last `X-Forwarded-For` hop (behind a trusted proxy)
    /// instead of the connection's peer address.
    public var trustForwardedFor: Bool
    /// The proxies whose `X-Forwarded-For` is believed (addresses or CIDR blocks, see `AddressRange`):
    /// the header counts only on a connection from one of them, and the client is the last hop that is
    /// not one of them. Required (non-empty) when `trustForwardedFor` is true.
    public var trustedProxies: [String]

    /// Limits; every argument defaults to the documented default.
    public init(
        enabled: Bool = true, issuePerUserPerMinute: Int = 120, issuePerAddressPerMinute: Int = 600,
        confirmPerUserPerMinute: Int = 600, confirmPerAddressPerMinute: Int = 3000, burst: Int = 10,
        trustForwardedFor: Bool = false, trustedProxies: [String] = []
    ) {
        self.enabled = enabled
        self.issuePerUserPerMinute = issuePerUserPerMinute
        self.issuePerAddressPerMinute = issuePerAddressPerMinute
        self.confirmPerUserPerMinute = confirmPerUserPerMinute
        self.confirmPerAddressPerMinute = confirmPerAddressPerMinute
        self.burst = burst
        self.trustForwardedFor = trustForwardedFor
        self.trustedProxies = trustedProxies
    }

    /// The bucket capacity for a limit of `perMinute`: `burst` seconds of refill, rounded up, at least 1.
    ///
    /// With the defaults: 20 for 120/min, 100 for 600/min, 500 for 3000/min.
    public func capacity(perMinute: Int) -> Int {
        max(1, (perMinute * burst + 59) / 60)
    }
}
