import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A trait that lets at most `width` of the tests marked with it run at once, across every suite of
/// the test process (a suite marked with it passes it to each of its tests). Swift Testing starts every
/// test at once; tests that start servers, load a store, or bound a wait by the clock (a drain's
/// delay, a health check, a time-out) then share two CPUs with all the others, and their timing breaks.
/// Marked `.heavy`, a few of them run at a time, while the other tests go on around them, and each runs
/// on dispatch's threads rather than the cooperative pool (`Throttled.executor`): they mostly wait
/// for other processes, and on the pool each of their steps queued behind every other test's work.
///
/// The gate is the test run's critical path: its tests run four at a time (`PRESIGN_TEST_HEAVY_WIDTH`
/// sets another width), so the run ends when its queue has drained. A test marked `.heavy(aloneSeconds:)` states roughly how long it takes alone on a
/// 2-CPU machine, and the gate lets the longest waiting test in first (longest-first keeps a long test
/// from starting last, alone, while the machine idles). With `PRESIGN_TEST_HEAVY_LOG` set to a file,
/// each heavy test case appends its wait and its run (seconds) to it.
public struct Throttled: TestTrait, SuiteTrait, TestScoping {
    /// The tests that share the one gate of heavy tests: `PRESIGN_TEST_HEAVY_WIDTH` places (default 4).
    public static let heavyGate = AsyncGate(
        width: ProcessInfo.processInfo.environment["PRESIGN_TEST_HEAVY_WIDTH"].flatMap { Int($0) } ?? 4)

    /// The tests that block their thread for their whole run (`.blocking`): `PRESIGN_TEST_BLOCKING_WIDTH`
    /// places (default 4).
    public static let blockingGate = AsyncGate(
        width: ProcessInfo.processInfo.environment["PRESIGN_TEST_BLOCKING_WIDTH"].flatMap { Int($0) } ?? 4)

    /// The gate the marked tests pass.
    let gate: AsyncGate
    /// Roughly how long the test takes alone (seconds): the gate's order.
    let aloneSeconds: Int

    /// Applied to the tests of a suite.
    public var isRecursive: Bool { true }

    /// Runs a test case once the gate lets it in, and lets the next one in when it ends.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }  // a suite: its tests pass one by one
        let arrived = ContinuousClock.now
        await gate.enter(weight: aloneSeconds)
        let entered = ContinuousClock.now
        defer {
            if gate === Self.heavyGate { Self.log(test, waited: entered - arrived, ran: ContinuousClock.now - entered) }
        }
        do {
            try await Self.$place.withValue(gate) {
                try await withTaskExecutorPreference(Self.executor) { try await function() }
            }
        } catch {
            await gate.leave()
            throw error
        }
        await gate.leave()
    }

    /// The gate whose place the running heavy test holds (nil outside a heavy test).
    @TaskLocal public static var place: AsyncGate?

    /// Runs `body` (a wait of a heavy test that loads nothing: it sleeps while a server's timer runs
    /// out, say) with the test's place given back, so that another heavy test runs meanwhile; then
    /// takes a place again before any waiting test. Outside a heavy test it just runs `body`.
    public static func awayFromGate<R>(_ body: () async throws -> R) async throws -> R {
        guard let gate = place else { return try await body() }
        await gate.leave()
        let result: Result<R, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        await gate.enter(weight: Int.max)
        return try result.get()
    }

    /// Where heavy tests run: a concurrent queue on dispatch's threads, not the cooperative pool.
    public static let executor = OwnQueueExecutor(label: "presignd-test-heavy", concurrent: true)

    /// The log's file, when `PRESIGN_TEST_HEAVY_LOG` names one.
    private static let logPath = ProcessInfo.processInfo.environment["PRESIGN_TEST_HEAVY_LOG"]

    /// One line per test case: seconds waited at the gate, seconds run, the test's name.
    private static func log(_ test: Test, waited: Duration, ran: Duration) {
        guard let logPath else { return }
        func s(_ d: Duration) -> String {
            String(format: "%.1f", Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
        }
        let line = "\(s(waited))\t\(s(ran))\t\(test.id)\n"
        let fd = open(logPath, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        guard fd >= 0 else { return }
        _ = line.withCString { write(fd, $0, strlen($0)) }  // one write per line: O_APPEND keeps lines whole
        close(fd)
    }
}

extension Trait where Self == Throttled {
    /// At most four `.heavy` tests run at once.
    public static var heavy: Throttled { Throttled(gate: Throttled.heavyGate, aloneSeconds: 0) }

    /// `.heavy`, for a test that takes about `aloneSeconds` alone: the gate lets it in before lighter ones.
    public static func heavy(aloneSeconds: Int) -> Throttled {
        Throttled(gate: Throttled.heavyGate, aloneSeconds: aloneSeconds)
    }

    /// For a suite of synchronous tests that wait on a store or another process (libpq, SQLite, a socket):
    /// a synchronous test runs on the thread that calls it, so on the cooperative pool it would hold one
    /// of that pool's threads (two on a 2-CPU machine) for its whole run, and every other test's next
    /// step would queue behind it. Marked `.blocking`, such tests run on dispatch's threads instead, four
    /// at a time (`PRESIGN_TEST_BLOCKING_WIDTH`), through a gate of their own, apart from the heavy one.
    public static var blocking: Throttled { Throttled(gate: Throttled.blockingGate, aloneSeconds: 0) }
}

/// An asynchronous counting gate: `enter(weight:)` waits (without holding a thread) while `width`
/// callers are inside; `leave()` lets the heaviest waiting caller in (the longest waiting among equals).
/// The first places are given `gatherMs` after the first caller arrives, so that the callers that
/// arrive together are taken heaviest first too.
public actor AsyncGate {
    private let width: Int
    private let gatherMs: Int
    private var inside = 0
    private var open = false
    private var gathering = false
    private var waiting: [(weight: Int, resume: CheckedContinuation<Void, Never>)] = []

    /// A gate of `width` places.
    public init(width: Int, gatherMs: Int = 500) {
        self.width = max(1, width)
        self.gatherMs = max(0, gatherMs)
    }

    /// Takes a place, waiting for one when all are taken (or while the first arrivals gather).
    public func enter(weight: Int = 0) async {
        if open && inside < width {
            inside += 1
            return
        }
        if !open && !gathering {
            gathering = true
            let ms = gatherMs
            Task {
                try? await Task.sleep(for: .milliseconds(ms))
                self.opened()
            }
        }
        await withCheckedContinuation { waiting.append((weight, $0)) }
    }

    /// How many callers wait for a place.
    public var waitingCount: Int { waiting.count }

    /// Gives the place back: to the heaviest waiting caller, if any.
    public func leave() {
        if let next = takeHeaviest() {
            next.resume()
        } else {
            inside -= 1
        }
    }

    /// The gathering is over: the places go to the heaviest callers that arrived.
    private func opened() {
        open = true
        while inside < width, let next = takeHeaviest() {
            inside += 1
            next.resume()
        }
    }

    /// Removes and returns the heaviest waiter (the earliest of equal weight).
    private func takeHeaviest() -> CheckedContinuation<Void, Never>? {
        guard var best = waiting.indices.first else { return nil }
        for i in waiting.indices where waiting[i].weight > waiting[best].weight { best = i }
        return waiting.remove(at: best).resume
    }
}

/// A trait that runs the marked tests on dispatch's threads (`Throttled.executor`) rather than the
/// cooperative pool, without the heavy gate: for long suites whose tests mostly wait (on RGW, a
/// receiver, a restarted store) and run one after another, so that each step does not queue behind the
/// CPU-bound work of every other test.
public struct OnDispatchThreads: TestTrait, SuiteTrait, TestScoping {
    /// Applied to the tests of a suite.
    public var isRecursive: Bool { true }

    /// Runs a test case with the dispatch threads as its preferred executor.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }
        try await withTaskExecutorPreference(Throttled.executor) { try await function() }
    }
}

extension Trait where Self == OnDispatchThreads {
    /// Runs on dispatch's threads, not the cooperative pool (see `OnDispatchThreads`).
    public static var onDispatchThreads: OnDispatchThreads { OnDispatchThreads() }
}
