import Foundation

/// Image keys (with their index) handed out to several clients.
final class KeyQueue: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [(Int, String)]
    private var position = 0

    /// A queue of `items`.
    init(_ items: [(Int, String)]) { self.items = items }

    /// The next item, nil when none is left.
    func next() -> (Int, String)? {
        lock.withLock {
            guard position < items.count else { return nil }
            position += 1
            return items[position - 1]
        }
    }

    /// Adds an item.
    func add(_ item: (Int, String)) { lock.withLock { items.append(item) } }

    /// Every item added.
    var all: [(Int, String)] { lock.withLock { items } }
}
