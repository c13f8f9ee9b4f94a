/// When the refresher asks its provider again. Pure: the time and the random source come in.
///
/// - After a success, credentials with an expiration are refreshed `refreshBeforeExpirySeconds`
///   plus a random `0...jitterSeconds` before it (15 to 18 minutes by default, so that instances
///   started together do not refresh together), and never sooner than `minimumIntervalSeconds`
///   from now (IMDS hands out the same credentials until shortly before they expire).
///   Credentials without an expiration are never refreshed.
/// - After the `n`th consecutive failure the next try is in `cap/2 + random(0...cap/2)` seconds,
///   `cap = min(retryMaxSeconds, retryBaseSeconds * 2^(n-1))` ("equal jitter": never at once).
public struct RefreshPolicy: Sendable, Equatable {
    /// How long before the expiration a refresh starts, in seconds.
    public var refreshBeforeExpirySeconds: Int64
    /// The most extra seconds, chosen at random, by which a refresh starts earlier still.
    public var jitterSeconds: Int64
    /// The shortest wait after a successful refresh, in seconds.
    public var minimumIntervalSeconds: Int64
    /// The cap of the wait after a first failure, in seconds (doubling per failure).
    public var retryBaseSeconds: Int64
    /// The longest wait after failures, in seconds.
    public var retryMaxSeconds: Int64

    /// A policy; the defaults are 15 minutes before expiry with up to 3 minutes of jitter, at least
    /// 60 s between refreshes, and retries after 5-10 s doubling up to 2.5-5 minutes.
    public init(
        refreshBeforeExpirySeconds: Int64 = 900, jitterSeconds: Int64 = 180, minimumIntervalSeconds: Int64 = 60,
        retryBaseSeconds: Int64 = 10, retryMaxSeconds: Int64 = 300
    ) {
        precondition(refreshBeforeExpirySeconds >= 0 && jitterSeconds >= 0 && minimumIntervalSeconds >= 1)
        precondition(retryBaseSeconds >= 1 && retryMaxSeconds >= retryBaseSeconds)
        self.refreshBeforeExpirySeconds = refreshBeforeExpirySeconds
        self.jitterSeconds = jitterSeconds
        self.minimumIntervalSeconds = minimumIntervalSeconds
        self.retryBaseSeconds = retryBaseSeconds
        self.retryMaxSeconds = retryMaxSeconds
    }

    /// When to refresh credentials expiring at `expiration`, fetched at `now`; nil: never.
    /// `random` returns a value in `0...upperBound`.
    public func nextRefresh(expiration: Int64?, now: Int64, random: (_ upperBound: Int) -> Int) -> Int64? {
        guard let expiration else { return nil }
        let jitter = Int64(min(max(random(Int(clamping: jitterSeconds)), 0), Int(clamping: jitterSeconds)))
        let planned = expiration - refreshBeforeExpirySeconds - jitter
        return max(planned, now + minimumIntervalSeconds)
    }

    /// When to try again after `failures` (1 or more) consecutive failures at `now`.
    public func nextRetry(failures: Int, now: Int64, random: (_ upperBound: Int) -> Int) -> Int64 {
        precondition(failures >= 1)
        let shift = Int64(min(failures - 1, 30))
        let (scaled, overflow) = retryBaseSeconds.multipliedReportingOverflow(by: 1 << shift)
        let cap = overflow ? retryMaxSeconds : min(retryMaxSeconds, scaled)
        let half = cap / 2
        let extra = Int64(min(max(random(Int(clamping: cap - half)), 0), Int(clamping: cap - half)))
        return now + max(1, half + extra)
    }
}
