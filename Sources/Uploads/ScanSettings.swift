import Config

/// The scanner's bounds (`scan.*`, docs/scanning.md).
public struct ScanSettings: Sendable {
    /// The largest object scanned; a larger one is rejected `TOO_LARGE_TO_SCAN`.
    public var maxBytes: Int64
    /// The wait after a scan with no verdict, doubling per attempt.
    public var retryBaseMs: Int64
    /// The longest such wait.
    public var retryMaxMs: Int64
    /// Records taken per look at the queue.
    public var batchSize: Int

    /// Settings from their values.
    public init(maxBytes: Int64, retryBaseMs: Int64, retryMaxMs: Int64, batchSize: Int = 16) {
        self.maxBytes = maxBytes
        self.retryBaseMs = retryBaseMs
        self.retryMaxMs = retryMaxMs
        self.batchSize = batchSize
    }

    /// The settings of the `scan` section.
    public init(_ config: ScanConfig) {
        self.init(
            maxBytes: Int64(config.maxBytes), retryBaseMs: Int64(config.retryBaseMs),
            retryMaxMs: Int64(config.retryMaxMs))
    }

    /// The wait before the next scan of a record whose scans gave no verdict `attempts` times (1 or
    /// more): `retryBaseMs` doubled per attempt before, at most `retryMaxMs`.
    public func retryDelayMs(afterAttempts attempts: Int) -> Int64 {
        var delay = retryBaseMs
        for _ in 1..<max(1, attempts) where delay < retryMaxMs { delay *= 2 }
        return min(delay, retryMaxMs)
    }
}
