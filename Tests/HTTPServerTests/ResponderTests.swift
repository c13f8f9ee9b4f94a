import Dispatch
import HTTP1
import Synchronization
import Testing

@testable import HTTPServer

#if canImport(Glibc)
    import Glibc
#endif

/// Answers collected from responders (any thread).
final class Answers: Sendable {
    /// The statuses delivered, in order.
    let statuses = Mutex<[Int]>([])

    /// Records one delivered answer.
    func deliver(_ response: Response) { statuses.withLock { $0.append(response.status) } }

    /// The statuses so far.
    var all: [Int] { statuses.withLock { $0 } }
}

/// The deferred answer's parts without sockets: a responder answers at most once, a dropped one still
/// answers, `map` reaches a deferred answer, and posting coalesces wake-ups.
@Suite struct ResponderTests {
    @Test func aResponderAnswersAtMostOnce() {
        let answers = Answers()
        let responder = Responder { answers.deliver($0) }
        #expect(!responder.isAnswered)
        #expect(responder.respond(Response(status: 200)))
        #expect(!responder.respond(Response(status: 503)))
        #expect(responder.isAnswered)
        #expect(answers.all == [200])
    }

    @Test func manyThreadsRacingToAnswerDeliverOnce() {
        for _ in 0..<200 {
            let answers = Answers()
            let responder = Responder { answers.deliver($0) }
            let wins = Counter()
            DispatchQueue.concurrentPerform(iterations: 8) { k in
                if responder.respond(Response(status: 200 + k)) { wins.add() }
            }
            #expect(wins.value == 1)
            #expect(answers.all.count == 1)
        }
    }

    @Test func aResponderLetGoUnansweredDeliversItsDroppedAnswer() {
        let answers = Answers()
        do {
            _ = Responder(dropped: { Response(status: 500) }) { answers.deliver($0) }
        }
        #expect(answers.all == [500])
        do {
            let answered = Responder(dropped: { Response(status: 500) }) { answers.deliver($0) }
            answered.respond(Response(status: 201))
        }
        #expect(answers.all == [500, 201])  // an answered one delivers nothing more when let go
    }

    @Test func mapReachesEveryFormOfAnswer() {
        let addHeader: @Sendable (Response) -> Response = { r in
            var r = r
            r.headers.append(("X-Mapped", "1"))
            return r
        }
        if case .respond(let r) = HandlerResult.respond(Response(status: 200)).map(addHeader) {
            #expect(r.headers.contains { $0.name == "X-Mapped" })
        } else {
            Issue.record("respond stays respond")
        }
        if case .blocking(let work) = HandlerResult.blocking({ Response(status: 201) }).map(addHeader) {
            #expect(work().headers.contains { $0.name == "X-Mapped" })
        } else {
            Issue.record("blocking stays blocking")
        }
        let seen = Mutex<[[String]]>([])
        let deferred = HandlerResult.deferred { responder in responder.respond(Response(status: 202)) }
        guard case .deferred(let start) = deferred.map(addHeader) else {
            Issue.record("deferred stays deferred")
            return
        }
        start(Responder { r in seen.withLock { $0.append(r.headers.map(\.name)) } })
        #expect(seen.withLock { $0 } == [["X-Mapped"]])
        // A mapped responder let go unanswered lets the server's go too, which answers for itself.
        let dropped = Answers()
        guard case .deferred(let silent) = HandlerResult.deferred({ _ in }).map(addHeader) else { return }
        silent(Responder(dropped: { Response(status: 500) }) { dropped.deliver($0) })
        #expect(dropped.all == [500])
    }

    /// One wake-up per batch of answers posted between two drains, not one per answer.
    @Test func postingWakesTheLoopOncePerBatch() {
        let queue = CompletionQueue<Int>()
        #expect(queue.post(1))
        for n in 2...100 { #expect(!queue.post(n)) }
        #expect(queue.takeAll() == Array(1...100))
        #expect(queue.takeAll().isEmpty)
        #expect(queue.post(101))  // after a drain, the next answer wakes the loop again
        #expect(!queue.post(102))
        #expect(queue.takeAll() == [101, 102])
        // Draining into a kept array: the queue and the array trade their buffers.
        var drained: [Int] = []
        drained.reserveCapacity(64)
        for n in 200..<210 { _ = queue.post(n) }
        queue.takeAll(into: &drained)
        #expect(drained == Array(200..<210))
        drained.removeAll(keepingCapacity: true)
        queue.takeAll(into: &drained)
        #expect(drained.isEmpty, "nothing was posted since")
        #expect(queue.post(300))  // the queue was emptied: the next answer wakes the loop
    }

    /// Many posting threads: whatever the interleaving, every answer is taken by a drain that follows
    /// a wake-up (none is left with no wake-up pending: the consumer would stop short of 20,000).
    @Test func noAnswerIsLeftWithoutAWakeUp() {
        let queue = CompletionQueue<Int>()
        let pendingWake = Counter()
        let taken = Mutex<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 5) { t in
            if t < 4 {
                for n in 0..<5_000 where queue.post(t * 10_000 + n) { pendingWake.add() }
                return
            }
            // The loop: read the "eventfd" (which takes its whole count), then take the queue.
            var got = 0
            let deadline = ContinuousClock.now + .seconds(60)
            while got < 20_000 && ContinuousClock.now < deadline {
                if pendingWake.take() > 0 {
                    let items = queue.takeAll()
                    got += items.count
                    taken.withLock { $0 += items }
                } else {
                    sched_yield()
                }
            }
        }
        #expect(taken.withLock { $0.count } == 20_000)
        #expect(Set(taken.withLock { $0 }).count == 20_000)
    }
}

/// A counter threads share.
final class Counter: Sendable {
    /// The count.
    private let count = Atomic<Int>(0)

    /// Adds one.
    func add() { count.add(1, ordering: .releasing) }

    /// The count now.
    var value: Int { count.load(ordering: .acquiring) }

    /// The count, reset to zero (as reading an eventfd does).
    func take() -> Int { count.exchange(0, ordering: .acquiringAndReleasing) }
}
