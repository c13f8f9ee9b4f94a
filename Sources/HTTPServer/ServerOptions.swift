import HTTP1

/// The server's knobs, filled from the configuration by the application.
public struct ServerOptions: Sendable {
    /// Address to listen on (an IPv4 or IPv6 literal).
    public var host: String = "127.0.0.1"
    /// Port to listen on; 0 picks a free one (see `HTTPServer.port`).
    public var port: Int = 8080
    /// Number of event loops (threads, each with its own epoll and listener); 0 means one per CPU the
    /// process may use (its affinity mask and cgroup CPU quota; `CPUCount`).
    public var eventLoops: Int = 0
    /// Threads that run blocking handler work.
    public var workerThreads: Int = 32
    /// Threads that run the blocking work of routes marked `brief` (work that waits on nothing slow, such
    /// as a read from a local store: it only needs a CPU); 0 means one per event loop. Kept apart from
    /// `workerThreads` so that short CPU-bound jobs are run by a few threads in turn instead of waking
    /// and switching among many (the pool for calls to storage must be large, as its jobs wait).
    public var briefWorkerThreads: Int = 0
    /// The most blocking jobs that may wait for a worker; a request finding the queue full is answered
    /// 503 `SERVER_BUSY` with `Retry-After` at once (`presignd_server_busy_total`).
    public var maxQueuedJobs: Int = 1024
    /// Cap on open client connections; at the cap the oldest idle connections are closed first.
    public var maxConnections: Int = 10_000
    /// Deadline for the whole header section of a request, from its first byte (or from accept).
    public var headerTimeoutMs: Int = 10_000
    /// Deadline for a request body once its head is read, and for a stalled response write.
    public var bodyTimeoutMs: Int = 30_000
    /// How long an idle keep-alive connection is kept.
    public var idleTimeoutMs: Int = 60_000
    /// How long a graceful shutdown waits for in-flight requests.
    public var drainTimeoutMs: Int = 10_000
    /// Requests answered per connection per read before other connections get their turn.
    public var maxPipelinedPerRead: Int = 32
    /// Limits of the request parser.
    public var parserLimits = ParserLimits()
    /// Whether to write one JSON access-log line per request to standard error.
    public var accessLog: Bool = true
    /// HTTPS termination; nil (the default) serves plain HTTP, e.g. behind a proxy.
    public var tls: TLSOptions? = nil
    /// The body of the errors the server answers by itself (400, 404, 405, 408, 413, 414, 431, 501,
    /// 503 `SERVER_BUSY`, 505); the application sets its API's shape. The default is `ServerOptions.plainErrorBody`.
    public var errorBody: ErrorBodyRenderer = ServerOptions.plainErrorBody

    /// Options with the documented defaults.
    public init() {}

    /// `text/plain; charset=utf-8` with `<code>: <message>` and a newline.
    public static let plainErrorBody: ErrorBodyRenderer = { _, code, message in
        ("text/plain; charset=utf-8", Array("\(code): \(message)\n".utf8))
    }
}

/// Renders the body of an error the server answers by itself: given the status, a stable machine code
/// (such as `NOT_FOUND`) and a human message, the content type and the bytes.
public typealias ErrorBodyRenderer =
    @Sendable (_ status: Int, _ code: String, _ message: String) -> (contentType: String, body: [UInt8])
