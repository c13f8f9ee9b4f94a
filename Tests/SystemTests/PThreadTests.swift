import Synchronization
import Testing

@testable import System

/// Threads start, run their body, and can be joined or detached.
struct PThreadTests {
    @Test func joinWaitsForTheBody() {
        let ran = Atomic(0)
        let thread = PThread(name: "test-join") { ran.store(7, ordering: .sequentiallyConsistent) }
        thread.join()
        #expect(ran.load(ordering: .sequentiallyConsistent) == 7)
    }

    @Test func detachedThreadRuns() {
        let monitor = Monitor(false)
        PThread.detach(name: "a-name-longer-than-fifteen-bytes") {
            monitor.withLock { done in done = true }
            monitor.broadcast()
        }
        let done = monitor.withLock { state, waiter in
            while !state.value { waiter.wait() }
            return state.value
        }
        #expect(done)
    }

    @Test func manyThreadsEachRunOnce() {
        let count = Atomic(0)
        let threads = (0..<8).map { index in
            PThread(name: "test-many-\(index)") { count.add(1, ordering: .relaxed) }
        }
        for thread in threads { thread.join() }
        #expect(count.load(ordering: .relaxed) == 8)
    }

    @Test func aThreadsNiceValueIsItsOwn() {
        let seen = Atomic(-100)
        let before = PThread.nice()
        let thread = PThread(name: "test-nice") {
            guard PThread.setNice(10) else { return }
            seen.store(Int(PThread.nice()), ordering: .sequentiallyConsistent)
        }
        thread.join()
        #expect(seen.load(ordering: .sequentiallyConsistent) == 10)
        #expect(PThread.nice() == before, "the caller's own value is unchanged")
    }
}
