#if canImport(Glibc)
    import Glibc
#endif

/// A mutex with one condition variable on the monotonic clock, guarding a state that threads wait on
/// (queues, pools).
///
/// `withLock` gives the body the state and a `MonitorWaiter`; waiting releases the mutex and takes it back
/// before returning, so the body sees every change made meanwhile. The state lives behind a pointer so
/// those changes are visible through the same binding. `Monitor<Void>` is a plain condition lock: `lock`,
/// `unlock`, `wait`, `signal` and `broadcast` work on it directly.
public final class Monitor<State>: @unchecked Sendable {
    /// The pthread mutex, allocated so it never moves.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// The condition variable, on the monotonic clock.
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    /// The guarded state; touched only while `mutex` is held.
    private let state: UnsafeMutablePointer<State>

    /// A monitor guarding `initial`.
    public init(_ initial: State) {
        mutex = .allocate(capacity: 1)
        precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
        condition = MonitorCondition.makeMonotonic()
        state = .allocate(capacity: 1)
        state.initialize(to: initial)
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
        pthread_cond_destroy(condition)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the mutex held; the body may wait through the `MonitorWaiter`.
    public func withLock<R, E: Error>(_ body: (LockedState<State>, MonitorWaiter) throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(LockedState(pointer: state), MonitorWaiter(mutex: mutex, condition: condition))
    }

    /// Runs `body` with the mutex held, for bodies that never wait.
    public func withLock<R, E: Error>(_ body: (inout State) throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state.pointee)
    }

    /// Takes the mutex (pair with `unlock`; prefer `withLock`).
    public func lock() { pthread_mutex_lock(mutex) }

    /// Releases the mutex taken by `lock`.
    public func unlock() { pthread_mutex_unlock(mutex) }

    /// Waits for a signal or a broadcast (or a spurious wake-up); the mutex must be held, and is held again
    /// on return.
    public func wait() { waiter.wait() }

    /// Waits at most `millis` milliseconds for a signal; false on time-out. The mutex must be held.
    @discardableResult
    public func wait(millis: Int) -> Bool { waiter.wait(millis: millis) }

    /// Wakes one waiting thread.
    public func signal() { pthread_cond_signal(condition) }

    /// Wakes every waiting thread (they re-check their conditions).
    public func broadcast() { pthread_cond_broadcast(condition) }

    /// A waiter on this monitor's mutex and condition.
    private var waiter: MonitorWaiter { MonitorWaiter(mutex: mutex, condition: condition) }

    /// Runs `body` holding the lock, its waiter waiting on `other` (a second condition of this monitor's
    /// lock, for a thread that must not be woken by every `broadcast`).
    public func withLock<R, E: Error>(
        waitingOn other: MonitorCondition, _ body: (LockedState<State>, MonitorWaiter) throws(E) -> R
    ) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(LockedState(pointer: state), MonitorWaiter(mutex: mutex, condition: other.condition))
    }
}

/// A further condition variable for a `Monitor`'s lock (`Monitor.withLock(waitingOn:_:)`): its waiters
/// are woken only by its own `signal` and `broadcast`. Uses the monotonic clock, as the monitor does.
public final class MonitorCondition: @unchecked Sendable {
    let condition: UnsafeMutablePointer<pthread_cond_t>

    /// A new condition.
    public init() { condition = Self.makeMonotonic() }

    /// A new condition variable on the monotonic clock (the monitor's own, and each further one).
    static func makeMonotonic() -> UnsafeMutablePointer<pthread_cond_t> {
        let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        precondition(pthread_cond_init(condition, &attributes) == 0, "pthread_cond_init failed")
        pthread_condattr_destroy(&attributes)
        return condition
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
    }

    /// Wakes one waiter.
    public func signal() { pthread_cond_signal(condition) }

    /// Wakes every waiter.
    public func broadcast() { pthread_cond_broadcast(condition) }
}

extension Monitor where State == Void {
    /// A plain condition lock, guarding no state.
    public convenience init() { self.init(()) }

    /// Runs `body` with the mutex held.
    public func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}
