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

    /// The current count.
    var count: Int { value.load(ordering: .relaxed) }
}
