import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// A named POSIX thread with a stop flag it can wait on (no Foundation: the server does not load it).
///
/// The body gets the thread itself, to wait with `wait(milliseconds:)` (which returns true once
/// stopping) and to read `isStopping`. Waits use the monotonic clock.
final class RefreshThread: @unchecked Sendable {
    /// Guards `stopping`.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    /// Signalled by `stopAndJoin`.
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// True once asked to stop (under `mutex`).
    private var stopping = false
    /// The thread.
    private var handle = pthread_t()

    /// What the new thread runs.
    private final class Box {
        let name: String
        let body: () -> Void
        init(name: String, body: @escaping () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Starts a thread named `name` (Linux keeps 15 bytes) running `body`.
    init(name: String, _ body: @escaping @Sendable (RefreshThread) -> Void) {
        precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        precondition(pthread_cond_init(condition, &attributes) == 0, "pthread_cond_init failed")
        pthread_condattr_destroy(&attributes)
        let box = Unmanaged.passRetained(Box(name: String(name.prefix(15))) { [self] in body(self) }).toOpaque()
        let rc = pthread_create(
            &handle, nil,
            { raw in
                let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
                box.name.withCString { _ = presignd_set_thread_name($0) }
                box.body()
                return nil
            }, box)
        precondition(rc == 0, "pthread_create failed: \(rc)")
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// True once `stopAndJoin` was called.
    var isStopping: Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return stopping
    }

    /// Waits up to `milliseconds` or until stopped; returns true when stopping.
    func wait(milliseconds: Int) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let nanoseconds = Int(deadline.tv_nsec) + (milliseconds % 1000) * 1_000_000
        deadline.tv_sec += milliseconds / 1000 + nanoseconds / 1_000_000_000
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !stopping {
            if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT { break }
        }
        return stopping
    }

    /// Asks the thread to stop and waits for it to end (from the thread itself it only detaches).
    func stopAndJoin() {
        pthread_mutex_lock(mutex)
        stopping = true
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
        if pthread_equal(pthread_self(), handle) != 0 {
            pthread_detach(handle)
        } else {
            pthread_join(handle, nil)
        }
    }
}
