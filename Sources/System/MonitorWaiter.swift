#if canImport(Glibc)
    import Glibc
#endif

/// Waits on a `Monitor`'s condition; only valid inside that monitor's `withLock`.
public struct MonitorWaiter {
    /// The monitor's mutex (held by the caller).
    let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// The monitor's condition variable (on `CLOCK_MONOTONIC`).
    let condition: UnsafeMutablePointer<pthread_cond_t>

    /// Releases the mutex until a signal or broadcast (or a spurious wake-up), then takes it back.
    public func wait() {
        pthread_cond_wait(condition, mutex)
    }

    /// Like `wait()`, but returns by `deadlineNanos` on `MonotonicClock` at the latest; false when the
    /// deadline passed.
    @discardableResult
    public func wait(untilNanos deadlineNanos: UInt64) -> Bool {
        var deadline = timespec()
        deadline.tv_sec = Int(deadlineNanos / 1_000_000_000)
        deadline.tv_nsec = Int(deadlineNanos % 1_000_000_000)
        return pthread_cond_timedwait(condition, mutex, &deadline) == 0
    }

    /// Like `wait()`, but for at most `millis` milliseconds (0 or less: no wait); false on time-out.
    @discardableResult
    public func wait(millis: Int) -> Bool {
        wait(untilNanos: MonotonicClock.nanoseconds() &+ UInt64(max(0, millis)) &* 1_000_000)
    }
}
