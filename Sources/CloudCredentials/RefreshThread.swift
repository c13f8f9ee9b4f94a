import System

#if canImport(Glibc)
    import Glibc
#endif

/// A named thread with a stop flag it can wait on, over System's `PThread` and `Monitor`.
///
/// The body gets the thread itself, to wait with `wait(milliseconds:)` (which returns true once
/// stopping) and to read `isStopping`. Waits use the monotonic clock.
final class RefreshThread: @unchecked Sendable {
    /// Whether a stop was asked, and the thread's own id (to tell a stop from inside it).
    private struct State {
        var stopping = false
        var ownId: pthread_t?
    }

    /// Guards the state and wakes waits when a stop is asked.
    private let monitor = Monitor(State())
    /// The thread (nil only while `init` runs).
    private var thread: PThread?

    /// Starts a thread named `name` (Linux keeps 15 bytes) running `body`.
    init(name: String, _ body: @escaping @Sendable (RefreshThread) -> Void) {
        thread = PThread(name: name) { [self] in
            monitor.withLock { state in state.ownId = pthread_self() }
            body(self)
        }
    }

    /// True once `stopAndJoin` was called.
    var isStopping: Bool { monitor.withLock { state in state.stopping } }

    /// Waits up to `milliseconds` or until stopped; returns true when stopping.
    func wait(milliseconds: Int) -> Bool {
        let deadline = MonotonicClock.nanoseconds() + UInt64(max(0, milliseconds)) * 1_000_000
        return monitor.withLock { state, waiter in
            while !state.stopping {
                if !waiter.wait(untilNanos: deadline) { break }
            }
            return state.stopping
        }
    }

    /// Asks the thread to stop and waits for it to end (from the thread itself it only asks).
    func stopAndJoin() {
        let fromItself = monitor.withLock { state -> Bool in
            state.stopping = true
            return state.ownId.map { pthread_equal($0, pthread_self()) != 0 } ?? false
        }
        monitor.broadcast()
        if !fromItself { thread?.join() }
    }
}
