import Synchronization
import System

/// A fixed pool of threads for blocking work (database commits, calls to storage), so that event
/// loops never block. Jobs run in submission order per free worker.
///
/// The queue of jobs waiting for a worker is bounded (`maxQueued`): when it is full, `trySubmit`
/// refuses at once instead of queueing, so an outage of a dependency that holds every worker cannot
/// pile requests up without limit; the caller answers 503 (`ServerOptions.maxQueuedJobs`).
public final class WorkerPool: @unchecked Sendable {
    private let lock = Monitor()
    private var queue: [@Sendable () -> Void] = []
    private var head = 0
    private var stopping = false
    private var threads: [PThread] = []
    /// The most jobs that may wait for a worker (jobs running on a worker are not counted).
    public let maxQueued: Int
    /// Jobs refused because the queue was full.
    private let refusedJobs = Atomic<Int>(0)

    /// Starts `threads` workers; at most `maxQueued` jobs may wait for one (`Int.max`: no bound).
    public init(threads count: Int, maxQueued: Int = .max, name: String = "presignd-work") {
        self.maxQueued = max(0, maxQueued)
        for i in 0..<max(1, count) {
            threads.append(PThread(name: "\(name)-\(i)") { [unowned self] in self.run() })
        }
    }

    /// Queues `job` unless `maxQueued` jobs are already waiting; false (and `job` dropped, never run)
    /// when it was refused. Never blocks beyond the queue's lock.
    public func trySubmit(_ job: @escaping @Sendable () -> Void) -> Bool {
        let queued = lock.withLock { () -> Bool in
            guard queue.count - head < maxQueued else { return false }
            queue.append(job)
            return true
        }
        guard queued else {
            refusedJobs.wrappingAdd(1, ordering: .relaxed)
            return false
        }
        lock.signal()
        return true
    }

    /// Jobs waiting for a worker now.
    public var queuedCount: Int {
        lock.withLock { queue.count - head }
    }

    /// Jobs `trySubmit` refused so far because the queue was full.
    public var refusedCount: Int { refusedJobs.load(ordering: .relaxed) }

    /// Registers the pool's gauge and counter in `metrics`: jobs waiting, and jobs refused (503 `SERVER_BUSY`).
    public func registerMetrics(in metrics: ServerMetrics) {
        Self.registerMetrics(of: [self], in: metrics)
    }

    /// Registers the gauge and counter of `pools` together in `metrics`: the jobs waiting in all of them,
    /// and the jobs any of them refused (503 `SERVER_BUSY`).
    public static func registerMetrics(of pools: [WorkerPool], in metrics: ServerMetrics) {
        metrics.register(
            name: "presignd_server_busy_total",
            help: "Requests answered 503 SERVER_BUSY because the worker queue was full."
        ) { pools.reduce(0) { $0 + $1.refusedCount } }
        metrics.register(name: "presignd_worker_queue_jobs", help: "Blocking jobs waiting for a worker.") {
            pools.reduce(0) { $0 + $1.queuedCount }
        }
    }

    /// Lets queued jobs finish, then stops and joins the workers.
    public func shutdown() {
        lock.withLock { stopping = true }
        lock.broadcast()
        for t in threads { t.join() }
        threads.removeAll()
    }

    private func run() {
        while true {
            lock.lock()
            while head == queue.count && !stopping { lock.wait() }
            if head == queue.count && stopping {
                lock.unlock()
                return
            }
            let job = queue[head]
            head += 1
            if head > 1024 && head * 2 > queue.count {
                queue.removeFirst(head)
                head = 0
            }
            lock.unlock()
            job()
        }
    }
}
