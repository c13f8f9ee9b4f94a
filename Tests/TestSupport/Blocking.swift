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
public final class OwnQueueExecutor: TaskExecutor, @unchecked Sendable {
    private let queue: DispatchQueue

    public init(label: String) { queue = DispatchQueue(label: label) }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// A task executor whose jobs run on dispatch's own worker threads (a concurrent queue that targets an
/// overcommitting global queue), outside the cooperative pool: a job gets a thread when it is ready,
/// whatever the pool's few threads are doing. For tests that spend their time waiting on other
/// processes (kill -9 cycles, several instances, outages): on the pool their every continuation queues
/// behind the CPU-bound work of hundreds of other tests (a 20 s test took 387 s in a full run).
public final class DispatchThreadsExecutor: TaskExecutor, @unchecked Sendable {
    private let queue: DispatchQueue

    public init(label: String) { queue = DispatchQueue(label: label, attributes: .concurrent) }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
