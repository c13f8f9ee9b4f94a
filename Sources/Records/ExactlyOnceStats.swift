/// Builds `InboxStats` from per-state rows, the same in every store. Pure.
enum ExactlyOnceStats {
    /// Stats from (state, count, oldest received) rows.
    static func inbox(_ rows: [(String, Int64, Int64?)]) -> InboxStats {
        var stats = InboxStats(pending: 0, oldestPendingReceivedAtMs: nil, done: 0, rejected: 0)
        for (state, count, oldest) in rows {
            switch InboxEvent.State(rawValue: state) {
            case .pending:
                stats.pending = Int(count)
                stats.oldestPendingReceivedAtMs = oldest
            case .done: stats.done = Int(count)
            case .rejected: stats.rejected = Int(count)
            case nil: break
            }
        }
        return stats
    }
}
