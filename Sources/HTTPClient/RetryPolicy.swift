/// When and how long to wait before retrying a failed idempotent call. Pure.
///
/// Exponential backoff with full jitter (the AWS Architecture Blog's "Exponential Backoff And
/// Jitter", 2015): before retry `n` (1-based) wait a uniformly random time in
/// `0...min(maxDelayMs, baseDelayMs * 2^(n-1))`. The random source is a parameter, so tests are
/// deterministic.
public struct RetryPolicy: Sendable, Equatable {
    /// Retries after the first attempt.
    public var maxRetries: Int
    /// The cap of the first wait, in milliseconds.
    public var baseDelayMs: Int
    /// The largest wait, in milliseconds.
    public var maxDelayMs: Int

    /// A policy; the defaults are 50 ms doubling up to 2 s.
    public init(maxRetries: Int, baseDelayMs: Int = 50, maxDelayMs: Int = 2000) {
        precondition(maxRetries >= 0 && baseDelayMs >= 0 && maxDelayMs >= 0)
        self.maxRetries = maxRetries
        self.baseDelayMs = baseDelayMs
        self.maxDelayMs = maxDelayMs
    }

    /// The longest wait before retry `retry` (1-based): `min(maxDelayMs, baseDelayMs * 2^(retry-1))`.
    public func delayCap(beforeRetry retry: Int) -> Int {
        precondition(retry >= 1)
        let shift = min(retry - 1, 30)
        let (scaled, overflow) = baseDelayMs.multipliedReportingOverflow(by: 1 << shift)
        return overflow ? maxDelayMs : min(maxDelayMs, scaled)
    }

    /// The wait before retry `retry`: `random(cap)`, clamped to `0...cap`, where `random` returns a
    /// value in `0...upperBound`.
    public func delay(beforeRetry retry: Int, random: (_ upperBound: Int) -> Int) -> Int {
        let cap = delayCap(beforeRetry: retry)
        return min(max(random(cap), 0), cap)
    }

    /// Whether to retry after a failure that `retryable` says may pass, when `retriesSoFar` retries
    /// were made already (each caller judges its own errors: S3's `SlowDown`, STS's throttling).
    public func shouldRetry(retryable: Bool, retriesSoFar: Int) -> Bool {
        retryable && retriesSoFar < maxRetries
    }
}
