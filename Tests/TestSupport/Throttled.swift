import Testing

/// A trait that lets at most `width` of the tests marked with it run at once, across every suite of
/// the test process (a suite marked with it passes it to each of its tests). Swift Testing starts every
/// test at once; tests that start servers, load a store, or bound a wait by the clock (a drain's
/// delay, a health check, a time-out) then share two CPUs with all the others, and their timing breaks.
/// Marked `.heavy`, a few of them run at a time, while the other tests go on around them.
public struct Throttled: TestTrait, SuiteTrait, TestScoping {
    /// The tests that share the one gate of heavy tests.
    public static let heavyGate = AsyncGate(width: 4)

    /// The gate the marked tests pass.
    let gate: AsyncGate

    /// Applied to the tests of a suite.
    public var isRecursive: Bool { true }

    /// Runs a test case once the gate lets it in, and lets the next one in when it ends.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }  // a suite: its tests pass one by one
        await gate.enter()
        do {
            try await function()
        } catch {
            await gate.leave()
            throw error
        }
        await gate.leave()
    }
}

extension Trait where Self == Throttled {
    /// At most four `.heavy` tests run at once.
    public static var heavy: Throttled { Throttled(gate: Throttled.heavyGate) }
}

/// An asynchronous counting gate: `enter()` waits (without holding a thread) while `width` callers are
/// inside; `leave()` lets the longest waiting one in.
public actor AsyncGate {
    private let width: Int
    private var inside = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// A gate of `width` places.
    public init(width: Int) { self.width = max(1, width) }

    /// Takes a place, waiting for one when all are taken.
    public func enter() async {
        if inside < width {
            inside += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Gives the place back: to the longest waiting caller, if any.
    public func leave() {
        if waiting.isEmpty {
            inside -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
