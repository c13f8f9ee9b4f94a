import System

/// A fixed set of threads that run one batch of jobs at a time and wait for all of them: an endpoint's
/// requests in flight at once (`webhooks.concurrency`), on threads of their own, never the server's.
final class SenderPool: @unchecked Sendable {
    /// The queue shared by the caller and the threads.
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var running = 0
        var stopping = false
    }

    private let monitor = Monitor(State())
    private var threads: [PThread] = []

    /// `count` threads named `name`, each at the nice value `nice` (`WebhookDeliveryOptions.senderNice`).
    init(count: Int, name: String, nice: Int32) {
        threads = (0..<max(1, count)).map { _ in
            PThread(name: name) { [self] in
                PThread.setNice(nice)
                work()
            }
        }
    }

    /// Runs `jobs` on the threads and returns when every one has finished.
    func runAll(_ jobs: [@Sendable () -> Void]) {
        guard !jobs.isEmpty else { return }
        monitor.withLock { state in
            state.jobs += jobs
            state.running += jobs.count
        }
        monitor.broadcast()
        monitor.withLock { state, waiter in
            while state.running > 0 { waiter.wait() }
        }
    }

    /// Stops the threads (after the jobs queued) and waits for them.
    func stop() {
        monitor.withLock { state in state.stopping = true }
        monitor.broadcast()
        for thread in threads { thread.join() }
        threads = []
    }

    /// One thread: take a job, run it, count it done.
    private func work() {
        while true {
            let job = monitor.withLock { (state, waiter) -> (@Sendable () -> Void)? in
                while state.jobs.isEmpty && !state.stopping { waiter.wait() }
                return state.jobs.isEmpty ? nil : state.jobs.removeFirst()
            }
            guard let job else { return }
            job()
            // Only the batch's last job wakes anyone: the caller waits for all of them, and the other
            // threads take queued jobs without waiting (a wake-up per job cost every sender and the
            // caller a context switch per delivery).
            let last = monitor.withLock { state in
                state.running -= 1
                return state.running == 0
            }
            if last { monitor.broadcast() }
        }
    }
}
