/// The limits of the blocking HTTP/1.1 client.
public struct HTTPClientOptions: Sendable, Equatable {
    /// The longest one exchange may take, connect to last response byte, in milliseconds.
    public var requestTimeoutMs: Int
    /// The longest a TCP connect (all resolved addresses together) may take, in milliseconds.
    public var connectTimeoutMs: Int
    /// A PEM file of trusted CA certificates for HTTPS; nil trusts the system store.
    public var caFile: String?
    /// The largest response body accepted, in bytes.
    public var maxResponseBytes: Int
    /// The largest response head (status line and header fields) accepted, in bytes.
    public var maxHeadBytes: Int
    /// Idle keep-alive connections kept per server address.
    public var maxIdleConnections: Int
    /// An idle pooled connection older than this is closed instead of reused, in milliseconds.
    public var idleTimeoutMs: Int
    /// When set (a name or an IP literal), every connection goes to this host instead of the one
    /// addressed, on the same port; the `Host` header, SNI and the certificate check still use the
    /// addressed host (curl's `--connect-to ::HOST:`). For storage behind a fixed address whose
    /// virtual-hosted names (`bucket.host`) are not in DNS, such as RGW with `rgw_dns_name` on loopback.
    public var connectHost: String?

    /// Client limits; each argument defaults to a value fit for S3 metadata calls.
    public init(
        requestTimeoutMs: Int = 5000, connectTimeoutMs: Int = 2000, caFile: String? = nil,
        maxResponseBytes: Int = 16 << 20, maxHeadBytes: Int = 64 << 10, maxIdleConnections: Int = 16,
        idleTimeoutMs: Int = 20_000, connectHost: String? = nil
    ) {
        precondition(requestTimeoutMs > 0 && connectTimeoutMs > 0, "timeouts must be positive")
        precondition(maxResponseBytes >= 0 && maxHeadBytes > 0 && maxIdleConnections >= 0 && idleTimeoutMs >= 0)
        self.requestTimeoutMs = requestTimeoutMs
        self.connectTimeoutMs = connectTimeoutMs
        self.caFile = caFile
        self.maxResponseBytes = maxResponseBytes
        self.maxHeadBytes = maxHeadBytes
        self.maxIdleConnections = maxIdleConnections
        self.idleTimeoutMs = idleTimeoutMs
        self.connectHost = connectHost
    }
}
