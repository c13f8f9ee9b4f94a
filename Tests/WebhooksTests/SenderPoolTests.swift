import Synchronization
import System
import Testing

@testable import WebhookDelivery

/// The senders' threads run every job of a batch, at the nice value they were given.
@Suite struct SenderPoolTests {
    @Test func everyJobRunsOnAThreadAtThePoolsNiceValue() {
        let pool = SenderPool(count: 3, name: "test-senders", nice: 7)
        defer { pool.stop() }
        let ran = Atomic(0)
        let otherNice = Atomic(0)
        let jobs: [@Sendable () -> Void] = (0..<12).map { _ in
            {
                if PThread.nice() != 7 { otherNice.add(1, ordering: .relaxed) }
                ran.add(1, ordering: .relaxed)
            }
        }
        pool.runAll(jobs)
        #expect(ran.load(ordering: .relaxed) == 12, "runAll returns after every job")
        #expect(otherNice.load(ordering: .relaxed) == 0)
        #expect(PThread.nice() != 7, "the caller keeps its own value")
    }
}
