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
    /// Uppy Companion route requests (`/s3/params`, `/s3/multipart` and its part, list and complete
    /// routes; never an abort) per minute per authenticated caller. Its bucket holds a whole minute
    /// (`companionCapacity`): Uppy sends a batch's requests at once and never retries a create or params.
    public var uppyPerUserPerMinute: Int
    /// Uppy Companion route requests per minute per client address.
    public var uppyPerAddressPerMinute: Int
    /// Bucket size, in seconds of refill at the limit's rate.
    public var burst: Int
    /// Uploads one user may be issued per UTC day (every issuing route; reserved with the intent,
    /// released when it expires unconfirmed); 0: no such quota.
    public var uploadsPerUserPerDay: Int = 0
    /// Bytes one user may be issued per UTC day, counted from the declared size, else the type's
    /// `maxBytes`; 0: no such quota.
    public var bytesPerUserPerDay: Int = 0
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
        confirmPerUserPerMinute: Int = 600, confirmPerAddressPerMinute: Int = 3000,
        uppyPerUserPerMinute: Int = 1000, uppyPerAddressPerMinute: Int = 5000, burst: Int = 10,
        trustForwardedFor: Bool = false, trustedProxies: [String] = []
    ) {
        self.enabled = enabled
        self.issuePerUserPerMinute = issuePerUserPerMinute
        self.issuePerAddressPerMinute = issuePerAddressPerMinute
        self.confirmPerUserPerMinute = confirmPerUserPerMinute
        self.confirmPerAddressPerMinute = confirmPerAddressPerMinute
        self.uppyPerUserPerMinute = uppyPerUserPerMinute
        self.uppyPerAddressPerMinute = uppyPerAddressPerMinute
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

    /// The bucket capacity of a Companion limit of `perMinute`: a whole minute's worth, or `burst`
    /// seconds' when that is more. With the default 1000/min: 1000 requests at once, enough for 100 files'
    /// create, params, part URLs and completion.
    public func companionCapacity(perMinute: Int) -> Int {
        max(perMinute, capacity(perMinute: perMinute))
    }
}
