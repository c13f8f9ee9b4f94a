import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// A pthread mutex with a condition variable, for queues whose consumers sleep.
public final class ConditionLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    /// A new, unlocked lock.
    public init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(cond, nil)
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        cond.deallocate()
    }

    /// Takes the lock.
    public func lock() { pthread_mutex_lock(mutex) }

    /// Releases the lock.
    public func unlock() { pthread_mutex_unlock(mutex) }

    /// Waits for a signal; the lock must be held and is held again on return.
    public func wait() { pthread_cond_wait(cond, mutex) }

    /// Waits at most `millis` for a signal; returns false on time-out. The lock must be held.
    @discardableResult
    public func wait(millis: Int) -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var ns = Int(now.tv_nsec) + (millis % 1000) * 1_000_000
        var deadline = timespec(tv_sec: now.tv_sec + millis / 1000 + ns / 1_000_000_000, tv_nsec: 0)
        ns %= 1_000_000_000
        deadline.tv_nsec = ns
        return pthread_cond_timedwait(cond, mutex, &deadline) == 0
    }

    /// Wakes one waiter.
    public func signal() { pthread_cond_signal(cond) }

    /// Wakes every waiter.
    public func broadcast() { pthread_cond_broadcast(cond) }

    /// Runs `body` with the lock held.
    public func withLock<R>(_ body: () throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// Starts a detached-joinable POSIX thread running `body`.
public final class PThread: @unchecked Sendable {
    private var handle = pthread_t()
    private final class Box {
        let body: () -> Void
        let name: String
        init(_ body: @escaping () -> Void, name: String) {
            self.body = body
            self.name = name
        }
    }

    /// Starts the thread, named `name` (at most 15 bytes are kept by Linux).
    public init(name: String, _ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Box(body, name: String(name.prefix(15)))).toOpaque()
        let rc = pthread_create(
            &handle, nil,
            { raw in
                let b = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
                b.name.withCString { _ = presignd_set_thread_name($0) }
                b.body()
                return nil
            }, box)
        precondition(rc == 0, "pthread_create failed: \(rc)")
    }

    /// Waits for the thread to end.
    public func join() { pthread_join(handle, nil) }
}
