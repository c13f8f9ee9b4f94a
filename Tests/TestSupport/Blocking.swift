import Foundation

/// Runs `work`, which blocks (a socket, a child process, a join), on a thread of its own and awaits its
/// result, so that an async test never holds one of the cooperative pool's few threads while it waits.
public func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

/// A task executor whose jobs run on a serial dispatch queue of their own, outside the cooperative
/// pool: dispatch gives such a queue a thread even while every cooperative thread is held. For an
/// async test whose own tasks must make progress within a bound (a request held in a worker while the
/// test waits for it) when other tests of the run keep the cooperative pool's few threads busy.
/// `concurrent`: the queue runs several jobs at once, on as many of dispatch's (overcommitting) threads
/// as are ready, for many tests that mostly wait on other processes (`.heavy`, `.onDispatchThreads`).
public final class OwnQueueExecutor: TaskExecutor, @unchecked Sendable {
    private let queue: DispatchQueue

    public init(label: String, concurrent: Bool = false) {
        queue = DispatchQueue(label: label, attributes: concurrent ? .concurrent : [])
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
