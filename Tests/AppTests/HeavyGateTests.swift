import Synchronization
import TestSupport
import Testing

/// The heavy tests' gate (TestSupport/Throttled.swift): the heaviest waiter first, and a test that only
/// waits gives its place away (`Throttled.awayFromGate`) and takes one back before any other waiter.
@Suite("The heavy tests' gate")
struct HeavyGateTests {
    /// The order events happen in, across tasks.
    final class Journal: Sendable {
        let entries = Mutex<[String]>([])
        func add(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    @Test("the heaviest waiter enters first when a place comes free")
    func heaviestFirst() async {
        let gate = AsyncGate(width: 1, gatherMs: 0)
        await gate.enter()
        let journal = Journal()
        let light = Task {
            await gate.enter(weight: 1)
            journal.add("light")
            await gate.leave()
        }
        let heavy = Task {
            await gate.enter(weight: 9)
            journal.add("heavy")
            await gate.leave()
        }
        #expect(await eventually(within: 10) { await gate.waitingCount == 2 })
        await gate.leave()
        await light.value
        await heavy.value
        #expect(journal.all == ["heavy", "light"])
    }

    @Test("away from the gate: a waiting test runs meanwhile, and the one away gets the next place")
    func away() async throws {
        let gate = AsyncGate(width: 1, gatherMs: 0)
        await gate.enter()
        let journal = Journal()
        // Two tests wait for the only place, which the test below holds.
        let waiters = (0..<2).map { n in
            Task {
                await gate.enter(weight: 5)
                journal.add("waiter \(n) in")
                try? await Task.sleep(for: .milliseconds(50))
                journal.add("waiter \(n) out")
                await gate.leave()
            }
        }
        #expect(await eventually(within: 10) { await gate.waitingCount == 2 })
        try await Throttled.$place.withValue(gate) {
            try await Throttled.awayFromGate {
                // Only while this one is away can a waiter be inside.
                #expect(await eventually(within: 10) { journal.all.contains { $0.hasSuffix("in") } })
            }
        }
        // Back inside: before the second waiter, which was waiting all along.
        journal.add("back")
        await gate.leave()
        for waiter in waiters { await waiter.value }
        let all = journal.all
        #expect(all.count == 5, "\(all)")
        #expect(all.prefix(3).filter { $0.hasPrefix("waiter") }.count == 2, "one waiter in and out first: \(all)")
        #expect(all[2] == "back", "\(all)")
    }

    @Test("outside a heavy test, awayFromGate only runs its body")
    func outside() async throws {
        #expect(Throttled.place == nil)
        #expect(try await Throttled.awayFromGate { 7 } == 7)
    }
}
