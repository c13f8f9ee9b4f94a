import HTTPClient
import SigV4

/// How the server talks to its object store: where, which bucket, and the limits of each call.
public struct ObjectStoreOptions: Sendable, Equatable {
    /// The endpoint the server itself calls (it may differ from the public endpoint in presigned URLs).
    public var endpoint: Endpoint
    /// The bucket every operation addresses.
    public var bucket: String
    /// The longest one attempt may take, connect to last response byte, in milliseconds.
    public var requestTimeoutMs: Int
    /// The longest a TCP connect (all resolved addresses together) may take, in milliseconds.
    public var connectTimeoutMs: Int
    /// Retries after a failed attempt (5xx, 429, `SlowDown`, timeout, broken connection); 0 disables.
    public var maxRetries: Int
    /// A PEM file of trusted CA certificates for HTTPS; nil trusts the system store.
    public var caFile: String?
    /// The largest response body accepted, in bytes (a ranged GET must stay under it).
    public var maxResponseBytes: Int
    /// Idle keep-alive connections kept per host; 0 closes every connection after its response.
    public var maxIdleConnections: Int
    /// An idle pooled connection older than this is closed instead of reused, in milliseconds.
    public var idleTimeoutMs: Int
    /// Where to connect instead of the addressed host (`HTTPClientOptions.connectHost`); nil: the host.
    public var connectHost: String?

    /// Options for `bucket` at `endpoint`; the limits default to values fit for a HEAD or a COPY.
    public init(
        endpoint: Endpoint, bucket: String, requestTimeoutMs: Int = 5000, connectTimeoutMs: Int = 2000,
        maxRetries: Int = 2, caFile: String? = nil, maxResponseBytes: Int = 16 << 20, maxIdleConnections: Int = 16,
        idleTimeoutMs: Int = 20_000, connectHost: String? = nil
    ) {
        precondition(requestTimeoutMs > 0 && connectTimeoutMs > 0, "timeouts must be positive")
        precondition(maxRetries >= 0 && maxResponseBytes >= 0 && maxIdleConnections >= 0 && idleTimeoutMs >= 0)
        self.endpoint = endpoint
        self.bucket = bucket
        self.requestTimeoutMs = requestTimeoutMs
        self.connectTimeoutMs = connectTimeoutMs
        self.maxRetries = maxRetries
        self.caFile = caFile
        self.maxResponseBytes = maxResponseBytes
        self.maxIdleConnections = maxIdleConnections
        self.idleTimeoutMs = idleTimeoutMs
        self.connectHost = connectHost
    }

    /// The transport settings of these options.
    public var httpClientOptions: HTTPClientOptions {
        HTTPClientOptions(
            requestTimeoutMs: requestTimeoutMs, connectTimeoutMs: connectTimeoutMs, caFile: caFile,
            maxResponseBytes: maxResponseBytes, maxIdleConnections: maxIdleConnections, idleTimeoutMs: idleTimeoutMs,
            connectHost: connectHost)
    }
}
