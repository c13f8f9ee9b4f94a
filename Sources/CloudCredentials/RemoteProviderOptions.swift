import HTTPClient

/// The limits of a provider that asks a service over HTTP (STS, the container agent, IMDS).
///
/// Credential services answer in milliseconds or not at all (IMDS off EC2, an agent not running),
/// so the time-outs are short and the retries few: a start-up on a machine without the service
/// loses at most about `(1 + maxRetries) * requestTimeoutMs`.
public struct RemoteProviderOptions: Sendable, Equatable {
    /// The longest a TCP connect may take, in milliseconds.
    public var connectTimeoutMs: Int
    /// The longest one exchange may take, connect to last byte, in milliseconds.
    public var requestTimeoutMs: Int
    /// Retries after the first attempt, on time-outs, broken connections, 5xx, 429 and throttling.
    public var maxRetries: Int
    /// The cap of the first wait before a retry, in milliseconds (full jitter, doubling).
    public var baseDelayMs: Int
    /// The largest wait before a retry, in milliseconds.
    public var maxDelayMs: Int
    /// A PEM file of trusted CAs for an https endpoint; nil trusts the system store.
    public var caFile: String?
    /// The largest answer accepted, in bytes.
    public var maxResponseBytes: Int

    /// Limits; the defaults are a 1 s connect, a 3 s exchange and 2 retries after 0-100 ms, 0-200 ms.
    public init(
        connectTimeoutMs: Int = 1000, requestTimeoutMs: Int = 3000, maxRetries: Int = 2, baseDelayMs: Int = 100,
        maxDelayMs: Int = 1000, caFile: String? = nil, maxResponseBytes: Int = 64 << 10
    ) {
        precondition(connectTimeoutMs > 0 && requestTimeoutMs > 0, "time-outs must be positive")
        precondition(maxRetries >= 0 && baseDelayMs >= 0 && maxDelayMs >= 0 && maxResponseBytes > 0)
        self.connectTimeoutMs = connectTimeoutMs
        self.requestTimeoutMs = requestTimeoutMs
        self.maxRetries = maxRetries
        self.baseDelayMs = baseDelayMs
        self.maxDelayMs = maxDelayMs
        self.caFile = caFile
        self.maxResponseBytes = maxResponseBytes
    }

    /// The HTTP client's limits: no pooled connections (a refresh comes minutes or hours apart).
    public var httpClientOptions: HTTPClientOptions {
        HTTPClientOptions(
            requestTimeoutMs: requestTimeoutMs, connectTimeoutMs: min(connectTimeoutMs, requestTimeoutMs),
            caFile: caFile, maxResponseBytes: maxResponseBytes, maxHeadBytes: 16 << 10, maxIdleConnections: 0)
    }

    /// The retry policy.
    public var retryPolicy: RetryPolicy {
        RetryPolicy(maxRetries: maxRetries, baseDelayMs: baseDelayMs, maxDelayMs: maxDelayMs)
    }
}
