import Synchronization
import Testing

@testable import System

/// The monitor: mutual exclusion, waiting for a change, time-outs, and the plain condition-lock form.
struct MonitorTests {
    @Test func waiterSeesTheChangeThatSignalledIt() {
        let monitor = Monitor(0)
        let thread = PThread(name: "test-signal") {
            monitor.withLock { value in value = 42 }
            monitor.broadcast()
        }
        let seen = monitor.withLock { state, waiter in
            while state.value == 0 { waiter.wait() }
            return state.value
        }
        thread.join()
        #expect(seen == 42)
    }

    @Test func timedWaitReturnsFalseWhenNothingSignals() {
        let monitor = Monitor(false)
        let before = MonotonicClock.nanoseconds()
        let signalled = monitor.withLock { _, waiter in waiter.wait(millis: 20) }
        #expect(!signalled)
        #expect(MonotonicClock.nanoseconds() - before >= 20_000_000)
        let pastDeadline = monitor.withLock { _, waiter in waiter.wait(untilNanos: 1) }
        #expect(!pastDeadline)
    }

    @Test func lockedStateReadsEveryChange() {
        struct Counts { var a = 0, b = 0 }
        let monitor = Monitor(Counts())
        monitor.withLock { state, _ in
            state.a += 1
            state.value.b = 5
        }
        #expect(monitor.withLock { $0.a } == 1)
        #expect(monitor.withLock { $0.b } == 5)
    }

    @Test func withLockExcludesOtherThreads() {
        let monitor = Monitor(0)
        let threads = (0..<4).map { index in
            PThread(name: "test-count-\(index)") {
                for _ in 0..<10_000 { monitor.withLock { value in value += 1 } }
            }
        }
        for thread in threads { thread.join() }
        #expect(monitor.withLock { $0 } == 40_000)
    }

    @Test func typedThrowsPassThrough() {
        struct Failure: Error {}
        let monitor = Monitor(1)
        #expect(throws: Failure.self) {
            try monitor.withLock { (_: inout Int) throws(Failure) in throw Failure() }
        }
        #expect(monitor.withLock { $0 } == 1)
    }

    /// `Monitor<Void>` offers what a condition lock does: lock, wait, signal, timed wait.
    @Test func plainConditionLock() {
        let lock = Monitor()
        let ready = Atomic(false)
        lock.lock()
        #expect(!lock.wait(millis: 10))
        lock.unlock()
        let thread = PThread(name: "test-plain") {
            lock.withLock { ready.store(true, ordering: .relaxed) }
            lock.signal()
        }
        lock.lock()
        while !ready.load(ordering: .relaxed) { lock.wait() }
        lock.unlock()
        thread.join()
        #expect(lock.withLock { ready.load(ordering: .relaxed) })
    }
}
