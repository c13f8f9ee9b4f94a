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
        var taken: [Element] = []
        takeAll(into: &taken)
        return taken
    }

    /// Takes every queued answer into `taken`, which must come in empty: the two buffers swap, so the
    /// queue goes on with the room `taken` had and nothing is allocated once both have grown. Why: the
    /// copy-then-`removeAll(keepingCapacity:)` this replaced allocated a new buffer as large as the
    /// largest drain at every drain (the old one was still referenced), and under load that malloc,
    /// too large for glibc's small bins, set off a `malloc_consolidate` each time (0.38 % of the loop's
    /// samples at 256 connections).
    func takeAll(into taken: inout [Element]) {
        precondition(taken.isEmpty, "takeAll(into:) needs an empty array")
        items.withLock { list in
            guard !list.isEmpty else { return }
            swap(&list, &taken)
        }
    }
}
