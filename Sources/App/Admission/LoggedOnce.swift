import Synchronization

/// Remembers which names a warning was already logged for, so a repeated mistake is logged once per
/// process (at most `limit` names are remembered; past that, nothing more is logged).
final class LoggedOnce: Sendable {
    private let seen = Mutex<Set<String>>([])
    private let limit: Int

    /// A memory of at most `limit` names.
    init(limit: Int) { self.limit = limit }

    /// True the first time `name` is given (while fewer than `limit` names are remembered).
    func first(_ name: String) -> Bool {
        seen.withLock { names in
            guard names.count < limit, !names.contains(name) else { return false }
            names.insert(name)
            return true
        }
    }
}
