#if canImport(Glibc)
    import Glibc
#endif

/// The HTTP/1.1 server: N event loops (one thread and one `SO_REUSEPORT` listener each), a worker pool
/// for blocking handlers, metrics and the access log.
public final class HTTPServer: @unchecked Sendable {
    /// The port the server listens on (the real one when 0 was asked).
    public let port: Int
    /// The server's metrics (also rendered by the application's `/metrics` route).
    public let metrics: ServerMetrics
    private let loops: [EventLoop]
    private var threads: [PThread] = []
    private let pool: WorkerPool
    private let shared = EventLoop.SharedState()

    /// Binds the listeners and prepares the loops; call `start()` to serve.
    public init(options: ServerOptions, router: Router, logSink: LogSink = LogSink()) throws(ServerError) {
        let count = options.eventLoops > 0 ? options.eventLoops : max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        metrics = ServerMetrics(shards: count)
        pool = WorkerPool(threads: options.workerThreads)
        var listeners: [Listener] = []
        let first = try Listener(host: options.host, port: options.port)
        listeners.append(first)
        for _ in 1..<count {
            listeners.append(try Listener(host: options.host, port: first.port))
        }
        port = first.port
        var loops: [EventLoop] = []
        for (i, l) in listeners.enumerated() {
            loops.append(
                try EventLoop(
                    index: i, listener: l, options: options, router: router, pool: pool, metrics: metrics,
                    shared: shared, logSink: logSink))
        }
        self.loops = loops
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

    /// Blocks until every loop has ended, then stops the worker pool.
    public func wait() {
        for t in threads { t.join() }
        threads.removeAll()
        pool.shutdown()
    }

    /// Connections open right now.
    public var openConnections: Int { shared.openConnections.load(ordering: .relaxed) }
}
