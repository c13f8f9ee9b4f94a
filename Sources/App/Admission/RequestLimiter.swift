/// What the gate asks of a rate limit: take a token for a key, or say how long to wait. `RateLimiter`
/// keeps its buckets in this process; `SharedRateLimiter` shares them through the records store.
protocol RequestLimiter: Sendable {
    /// Takes a token for `key`, or says how long to wait.
    func check(_ key: String) -> RateLimiter.Decision
}

extension RateLimiter: RequestLimiter {}
