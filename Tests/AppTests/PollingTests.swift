import Foundation
import TestSupport
import Testing

/// `eventually`'s intervals (TestSupport/Eventually.swift).
@Suite("eventually: its polling")
struct PollingTests {
    @Test("without pollMs: 5 ms, doubling, never above 100 ms; with it: that interval every time")
    func intervals() {
        var growing = Polling(fixedMs: nil)
        #expect((0..<8).map { _ in growing.next() } == [5, 10, 20, 40, 80, 100, 100, 100])
        var fixed = Polling(fixedMs: 2)
        #expect((0..<4).map { _ in fixed.next() } == [2, 2, 2, 2])
    }

    @Test("a condition that holds at once is seen at once; one that never holds is asked a few times a second")
    func asks() async {
        let counter = Counter()
        #expect(await eventually { counter.add() >= 1 })
        #expect(counter.value == 1)
        let never = Counter()
        #expect(!(await eventually(within: 1) { never.add() < 0 }))
        // 5+10+20+40+80 ms, then 100 ms steps: about 13 asks in one second (fewer on a stalled
        // machine, at least the first and the last), not 200.
        #expect(never.value >= 2 && never.value <= 20, "asked \(never.value) times")
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        var value: Int { lock.withLock { count } }
        func add() -> Int {
            lock.withLock {
                count += 1
                return count
            }
        }
    }
}
