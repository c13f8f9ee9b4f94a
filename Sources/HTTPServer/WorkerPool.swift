import System

/// A fixed pool of threads for blocking work (database commits, calls to storage), so that event
/// loops never block. Jobs run in submission order per free worker.
public final class WorkerPool: @unchecked Sendable {
    private let lock = Monitor()
    private var queue: [@Sendable () -> Void] = []
    private var head = 0
    private var stopping = false
    private var threads: [PThread] = []

    /// Starts `threads` workers.
    public init(threads count: Int, name: String = "presignd-work") {
        for i in 0..<max(1, count) {
            threads.append(PThread(name: "\(name)-\(i)") { [unowned self] in self.run() })
        }
    }

    /// Queues `job`; it runs on one of the workers.
    public func submit(_ job: @escaping @Sendable () -> Void) {
        lock.withLock {
            queue.append(job)
        }
        lock.signal()
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
