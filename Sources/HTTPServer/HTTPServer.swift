import Logging
import System

#if canImport(Glibc)
    import Glibc
#endif

/// The HTTP/1.1 server: N event loops (one thread and one `SO_REUSEPORT` listener each), worker pools
/// for blocking handlers (a large one for work that waits, a small one for brief routes; `Route.brief`),
/// metrics and the access log; optionally HTTPS (`ServerOptions.tls`).
public final class HTTPServer: @unchecked Sendable {
    /// The port the server listens on (the real one when 0 was asked).
    public let port: Int
    /// The server's metrics (also rendered by the application's `/metrics` route).
    public let metrics: ServerMetrics
    /// How many event loops the server runs: `ServerOptions.eventLoops`, or when that is 0 the CPUs the
    /// process may use (affinity mask and cgroup quota; `CPUCount`).
    public let eventLoopCount: Int
    /// What decided `eventLoopCount` (e.g. "configured", "affinity", "cgroup v2 cpu.max").
    public let eventLoopCountSource: CPUCount.Source
    private let loops: [EventLoop]
    private var threads: [PThread] = []
    private let pool: WorkerPool
    private let briefPool: WorkerPool
    private let shared: EventLoop.SharedState
    private let tlsOptions: TLSOptions?

    /// Loads the TLS certificate and key (when `options.tls` is set), binds the listeners and prepares
    /// the loops; call `start()` to serve. The loops record into `metrics` (made by the caller, with a
    /// shard for each loop, so that its gauges exist before the server does), or into metrics of their own.
    public init(
        options: ServerOptions, router: Router, metrics given: ServerMetrics? = nil, logSink: LogSink = LogSink()
    ) throws(ServerError) {
        tlsOptions = options.tls
        let sizing = CPUCount.detect(configured: options.eventLoops)
        let count = sizing.count
        if let given, given.shardCount < count { throw .metricsShards(have: given.shardCount, loops: count) }
        let context = try options.tls.map { (t) throws(ServerError) in try TLSServerContext(options: t) }
        shared = EventLoop.SharedState(tlsContext: context)
        eventLoopCount = count
        eventLoopCountSource = sizing.source
        metrics = given ?? ServerMetrics(shards: count)
        let pool = WorkerPool(threads: options.workerThreads, maxQueued: options.maxQueuedJobs)
        let briefPool = WorkerPool(
            threads: options.briefWorkerThreads > 0 ? options.briefWorkerThreads : count,
            maxQueued: options.maxQueuedJobs, name: "presignd-brief")
        self.pool = pool
        self.briefPool = briefPool
        WorkerPool.registerMetrics(of: [pool, briefPool], in: metrics)
        var loops: [EventLoop] = []
        do {
            // The TLS context is built before the pool; from here on a failure stops the pool's
            // threads before the error leaves (they must never outlive it).
            var listeners: [Listener] = []
            let first = try Listener(host: options.host, port: options.port)
            listeners.append(first)
            for _ in 1..<count {
                listeners.append(try Listener(host: options.host, port: first.port))
            }
            port = first.port
            for (i, l) in listeners.enumerated() {
                loops.append(
                    try EventLoop(
                        index: i, listener: l, options: options, router: router, pool: pool,
                        briefPool: briefPool, metrics: metrics, shared: shared, logSink: logSink))
            }
        } catch {
            pool.shutdown()
            briefPool.shutdown()
            throw error
        }
        self.loops = loops
        if context != nil {
            let shared = self.shared
            metrics.register(
                name: "presignd_tls_handshake_failures_total", help: "TLS handshakes that failed or were abandoned."
            ) { shared.tlsHandshakeFailures.load(ordering: .relaxed) }
        }
    }

    /// Builds a new TLS context from the same certificate and key files and uses it for connections
    /// accepted from now on; open connections keep the context they started with. On failure the
    /// current context stays in use and the error names the file and OpenSSL's reason.
    public func reloadTLS() throws(ServerError) {
        guard let tlsOptions else { throw .tlsNotEnabled }
        let context = try TLSServerContext(options: tlsOptions)
        shared.tlsContext.withLock { $0 = context }
    }

    /// Starts one thread per event loop.
    public func start() {
        for loop in loops {
            threads.append(PThread(name: "presignd-loop\(loop.index)") { loop.run() })
        }
    }

    /// Starts a graceful shutdown: stop accepting, finish in-flight requests, close idle connections.
    /// Returns at once; `wait()` returns when every loop has ended (at the latest at the drain timeout).
    public func shutdown() {
        shared.shuttingDown.store(true, ordering: .releasing)
        for l in loops { l.wake() }
    }

    /// Blocks until every loop has ended, then stops the worker pools.
    public func wait() {
        for t in threads { t.join() }
        threads.removeAll()
        pool.shutdown()
        briefPool.shutdown()
    }

    /// Connections open right now.
    public var openConnections: Int { shared.openConnections.load(ordering: .relaxed) }
}
