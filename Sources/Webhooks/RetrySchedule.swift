/// When a failed delivery is tried again: exponential backoff with jitter, up to a number of attempts.
/// Pure: the random draw is passed in.
///
/// After attempt `n` (1-based) failed, the next waits `base × 2^(n-1)`, at most `max`, scaled by a factor
/// drawn uniformly in [0.75, 1.25) (so that many deliveries failed together do not all come back at
/// once); after attempt `maxAttempts` there is no next one. The defaults (5 s doubling to one hour, 33
/// attempts) span about a day.
public struct RetrySchedule: Sendable, Equatable {
    /// The first wait, in milliseconds.
    public var baseMs: Int64
    /// The longest wait, in milliseconds (before jitter).
    public var maxMs: Int64
    /// Attempts in all, the first included.
    public var maxAttempts: Int

    /// A schedule; every value at least 1.
    public init(baseMs: Int64, maxMs: Int64, maxAttempts: Int) {
        self.baseMs = max(1, baseMs)
        self.maxMs = max(self.baseMs, maxMs)
        self.maxAttempts = max(1, maxAttempts)
    }

    /// The wait after attempt `attempt` (1-based) failed, in milliseconds, with `unit` (in [0, 1)) as the
    /// jitter's draw; nil when that attempt was the last.
    public func delayMs(afterAttempt attempt: Int, unit: Double) -> Int64? {
        guard attempt < maxAttempts else { return nil }
        let exponent = min(max(0, attempt - 1), 62)
        let plain = baseMs > maxMs >> exponent ? maxMs : min(maxMs, baseMs << exponent)
        let factor = 0.75 + 0.5 * min(max(unit, 0), 1)
        return max(1, Int64((Double(plain) * factor).rounded()))
    }

    /// The waits in all, without jitter: how long a delivery that always fails is tried.
    public var spanMs: Int64 {
        (1..<maxAttempts).reduce(Int64(0)) { sum, attempt in sum + (delayMs(afterAttempt: attempt, unit: 0.5) ?? 0) }
    }
}
