import Synchronization

/// A shareable atomic counter (an `Atomic` cannot be captured by a thread's closure; a class holding one can).
final class Counter: Sendable {
    /// The count.
    private let value = Atomic<Int>(0)

    /// A counter at zero.
    init() {}

    /// Adds `amount`.
    func add(_ amount: Int = 1) { value.add(amount, ordering: .relaxed) }

    /// Sets the count to `amount`.
    func set(_ amount: Int) { value.store(amount, ordering: .relaxed) }

    /// Adds one if the count is below `limit`; whether it did (exact under concurrent callers).
    func incrementIfBelow(_ limit: Int) -> Bool {
        var current = value.load(ordering: .relaxed)
        while current < limit {
            let (exchanged, found) = value.compareExchange(
                expected: current, desired: current + 1, ordering: .relaxed)
            if exchanged { return true }
            current = found
        }
        return false
    }

    /// The current count.
    var count: Int { value.load(ordering: .relaxed) }
}
