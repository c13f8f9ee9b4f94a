#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A mutex with one condition variable, guarding a state that threads wait on (queues, pools).
///
/// `withLock` gives the body the state and a `MonitorWaiter`; waiting releases the mutex and takes it back
/// before returning, so the body sees every change made meanwhile. The state lives behind a pointer so
/// those changes are visible through the same `inout` binding.
final class Monitor<State>: @unchecked Sendable {
    /// The pthread mutex, allocated so it never moves.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// The condition variable, on the monotonic clock.
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    /// The guarded state; touched only while `mutex` is held.
    private let state: UnsafeMutablePointer<State>

    /// A monitor guarding `initial`.
    init(_ initial: State) {
        mutex = .allocate(capacity: 1)
        precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
        condition = .allocate(capacity: 1)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        #if canImport(Glibc)
            pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        #endif
        precondition(pthread_cond_init(condition, &attributes) == 0, "pthread_cond_init failed")
        pthread_condattr_destroy(&attributes)
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

    /// Runs `body` with the mutex held.
    func withLock<R, E: Error>(_ body: (LockedState<State>, MonitorWaiter) throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(LockedState(pointer: state), MonitorWaiter(mutex: mutex, condition: condition))
    }

    /// Runs `body` with the mutex held, for bodies that never wait.
    func withLock<R, E: Error>(_ body: (inout State) throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state.pointee)
    }

    /// Wakes every waiting thread (they re-check their conditions).
    func broadcast() {
        pthread_cond_broadcast(condition)
    }

    /// The monotonic clock, in nanoseconds.
    static func nowNanos() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}

/// Waits on a `Monitor`'s condition; only valid inside that monitor's `withLock`.
/// The state seen from a body that may wait: every access goes through the pointer.
///
/// A body that waits must not hold the state as an `inout` argument: the compiler may assume an `inout`
/// value does not change during the call and keep it in registers across `wait()`, while other threads
/// change it meanwhile (seen: two threads given the same pooled connection in a release build). Reading
/// through the pointer on every access forces a reload after each wait.
@dynamicMemberLookup
struct LockedState<State> {
    let pointer: UnsafeMutablePointer<State>

    subscript<T>(dynamicMember path: WritableKeyPath<State, T>) -> T {
        get { pointer.pointee[keyPath: path] }
        nonmutating _modify { yield &pointer.pointee[keyPath: path] }
    }
}

struct MonitorWaiter {
    /// The monitor's mutex (held by the caller).
    fileprivate let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// The monitor's condition variable.
    fileprivate let condition: UnsafeMutablePointer<pthread_cond_t>

    /// Releases the mutex until a broadcast (or a spurious wake-up), then takes it back.
    func wait() {
        pthread_cond_wait(condition, mutex)
    }

    /// Like `wait()`, but returns by `deadlineNanos` on the monotonic clock at the latest; false when the
    /// deadline passed.
    @discardableResult
    func wait(untilNanos deadlineNanos: UInt64) -> Bool {
        var deadline = timespec()
        deadline.tv_sec = Int(deadlineNanos / 1_000_000_000)
        deadline.tv_nsec = Int(deadlineNanos % 1_000_000_000)
        return pthread_cond_timedwait(condition, mutex, &deadline) == 0
    }
}
