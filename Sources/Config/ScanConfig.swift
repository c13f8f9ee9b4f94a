/// The `scan` section: the malware scan before publishing (docs/scanning.md). It does anything only for
/// types with `scan: "clamav"`.
public struct ScanConfig: Sendable, Equatable {
    /// Where clamd listens: `tcp://host:port` or `unix:/path/to/clamd.ctl`.
    public var clamdAddress: String
    /// The largest object scanned, in bytes: a larger one is rejected (`TOO_LARGE_TO_SCAN`). At most
    /// clamd's own `StreamMaxLength`.
    public var maxBytes: Int
    /// How long one scan may take (connect, stream, answer), in milliseconds; past it the scan is retried.
    public var timeoutMs: Int
    /// The size of each `INSTREAM` chunk, in bytes (the memory one scan holds).
    public var chunkBytes: Int
    /// The wait after a scan that did not finish (clamd unreachable, a timeout), doubling after each, in
    /// milliseconds.
    public var retryBaseMs: Int
    /// The longest wait between two attempts at a record's scan, in milliseconds.
    public var retryMaxMs: Int
    /// How often the scanner looks for records to scan when it found none, in milliseconds.
    public var pollIntervalMs: Int

    /// The settings; every argument defaults to the documented default.
    public init(
        clamdAddress: String = "tcp://127.0.0.1:3310", maxBytes: Int = 26_214_400, timeoutMs: Int = 30_000,
        chunkBytes: Int = 65_536, retryBaseMs: Int = 1000, retryMaxMs: Int = 60_000, pollIntervalMs: Int = 500
    ) {
        self.clamdAddress = clamdAddress
        self.maxBytes = maxBytes
        self.timeoutMs = timeoutMs
        self.chunkBytes = chunkBytes
        self.retryBaseMs = retryBaseMs
        self.retryMaxMs = retryMaxMs
        self.pollIntervalMs = pollIntervalMs
    }
}
