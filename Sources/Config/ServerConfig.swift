/// The `server` section: where to listen and the limits of the HTTP server.
public struct ServerConfig: Sendable, Equatable {
    /// Address to listen on.
    public var host: String
    /// TCP port to listen on; 0 lets the system pick a free port (tests read it back from the server).
    public var port: Int
    /// Event loop threads; 0 means one per CPU the process may use (affinity mask, cgroup quota).
    public var eventLoops: Int
    /// Threads for handlers that wait (database, S3).
    public var workerThreads: Int
    /// Most blocking jobs waiting for a worker; beyond it requests get 503 SERVER_BUSY at once.
    public var workerQueueLimit: Int = 1024
    /// Most open client connections; more are refused.
    public var maxConnections: Int
    /// Time allowed to receive a complete request head, in milliseconds.
    public var headerTimeoutMs: Int
    /// Time allowed to receive a request body, in milliseconds.
    public var bodyTimeoutMs: Int
    /// Time an idle keep-alive connection is kept open, in milliseconds.
    public var idleTimeoutMs: Int
    /// Time given to in-flight requests on shutdown, in milliseconds.
    public var drainTimeoutMs: Int
    /// Time between SIGTERM and the listeners closing, in milliseconds: `/readyz` answers 503 at once and
    /// everything else is still served, so a load balancer's health check takes the instance out first.
    public var drainDelayMs: Int = 5000
    /// Most pipelined requests handled from one read before yielding.
    public var maxPipelinedPerRead: Int
    /// Largest accepted JSON request body, in bytes.
    public var maxJsonBodyBytes: Int
    /// Separate port for `/metrics`; 0 means served on the main port.
    public var metricsPort: Int
    /// Where the running server writes the address it really listens on (JSON), for `presignd
    /// healthcheck`; nil (empty in the file): nowhere. The container image sets it.
    public var listenInfoPath: String? = nil

    /// Server settings; every argument defaults to the documented default.
    public init(
        host: String = "127.0.0.1", port: Int = 8080, eventLoops: Int = 0, workerThreads: Int = 32,
        maxConnections: Int = 10000, headerTimeoutMs: Int = 10000, bodyTimeoutMs: Int = 30000,
        idleTimeoutMs: Int = 60000, drainTimeoutMs: Int = 10000, maxPipelinedPerRead: Int = 32,
        maxJsonBodyBytes: Int = 65536, metricsPort: Int = 0
    ) {
        self.host = host
        self.port = port
        self.eventLoops = eventLoops
        self.workerThreads = workerThreads
        self.maxConnections = maxConnections
        self.headerTimeoutMs = headerTimeoutMs
        self.bodyTimeoutMs = bodyTimeoutMs
        self.idleTimeoutMs = idleTimeoutMs
        self.drainTimeoutMs = drainTimeoutMs
        self.maxPipelinedPerRead = maxPipelinedPerRead
        self.maxJsonBodyBytes = maxJsonBodyBytes
        self.metricsPort = metricsPort
    }
}
