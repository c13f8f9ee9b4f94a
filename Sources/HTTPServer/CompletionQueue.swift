import Synchronization

/// Answers posted to one event loop from other threads (workers, `Responder`s), with coalesced
/// wake-ups: `post` says to wake the loop only when it made the queue non-empty, so a batch of answers
/// posted between two drains costs one eventfd write, not one per answer.
///
/// Why that is enough: the loop reads its eventfd, then takes the whole queue (`takeAll`) under the
/// same lock `post` appends under. An answer posted after the take finds the queue empty and wakes the
/// loop again; one posted before it is in what the loop took.
final class CompletionQueue<Element: Sendable>: Sendable {
    /// The answers not yet taken, oldest first.
    private let items = Mutex<[Element]>([])

    /// An empty queue.
    init() {}

    /// Appends `item`; true when the queue was empty, so the caller must wake the loop.
    func post(_ item: Element) -> Bool {
        items.withLock { list in
            list.append(item)
            return list.count == 1
        }
    }

    /// Takes every queued answer, oldest first (the loop, after reading its eventfd).
    func takeAll() -> [Element] {
        items.withLock { list in
            guard !list.isEmpty else { return [] }
            let taken = list
            list.removeAll(keepingCapacity: true)
            return taken
        }
    }
}
