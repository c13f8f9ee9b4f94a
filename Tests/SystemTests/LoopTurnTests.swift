import Synchronization
import Testing

@testable import System

/// `LoopTurn`: an action put off on a thread that adopted a queue runs once at the end of its turn;
/// on any other thread it runs at once.
struct LoopTurnTests {
    @Test("off a loop an action runs at once")
    func offLoopRunsAtOnce() {
        let runs = Atomic<Int>(0)
        let action = TurnEndAction { runs.add(1, ordering: .relaxed) }
        LoopTurn.atTurnEnd(action)
        #expect(runs.load(ordering: .relaxed) == 1)
    }

    @Test("on an adopting thread actions wait for the turn's end, each once, oldest first")
    func deferredOncePerTurn() {
        let order = Mutex<[String]>([])
        let a = TurnEndAction { order.withLock { $0.append("a") } }
        let b = TurnEndAction { order.withLock { $0.append("b") } }
        let seen = Mutex<([String], [String], Bool)>(([], [], false))
        // A thread of its own, as an event loop's: the adoption is per thread.
        let thread = PThread(name: "loop-turn-test") {
            let queue = TurnEndQueue()
            LoopTurn.adopt(queue)
            LoopTurn.atTurnEnd(a)
            LoopTurn.atTurnEnd(b)
            LoopTurn.atTurnEnd(a)
            let before = order.withLock { $0 }
            queue.runAll()
            let after = order.withLock { $0 }
            let empty = queue.isEmpty
            LoopTurn.leave()
            seen.withLock { $0 = (before, after, empty) }
        }
        thread.join()
        let (before, after, empty) = seen.withLock { $0 }
        #expect(before.isEmpty)
        #expect(after == ["a", "b"])
        #expect(empty)
        // This thread adopted nothing: at once again.
        LoopTurn.atTurnEnd(b)
        #expect(order.withLock { $0 } == ["a", "b", "b"])
    }
}
