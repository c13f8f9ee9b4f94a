/// Deadlines, drains and the connection cap.
extension ConnectionStateMachine {
    /// What to do with a connection at the connection cap.
    enum Admission: Equatable {
        /// Below the cap: take it.
        case accept
        /// At the cap: close the longest-idle connection, then take the newcomer.
        case evictIdleThenAccept
        /// At the cap with nothing idle: answer 503 and close the newcomer.
        case refuseWith503
        /// At the cap with nothing idle over TLS (no answer is possible before a handshake): close it.
        case refuse
    }

    /// The cap rule: below `maxConnections` accept; at it evict the longest-idle connection when one is
    /// idle (`canEvict`), else refuse (with a 503 on plain HTTP).
    static func admission(open: Int, maxConnections: Int, canEvict: Bool, tls: Bool) -> Admission {
        if open < maxConnections { return .accept }
        if canEvict { return .evictIdleThenAccept }
        return tls ? .refuse : .refuseWith503
    }

    /// The 100 ms timer fired at `nowMs`: `.close` past the header deadline (whole head), the idle
    /// timeout, a stalled write (`bodyTimeoutMs` without progress) or the lingering deadline;
    /// `.respondTimeout` past the body deadline (the 408 closes the connection).
    mutating func timerFired(nowMs: Int64, writePending: Bool) -> Action {
        switch state {
        case .awaitingHead:
            if writePending {
                return nowMs - lastActiveMs > rules.bodyTimeoutMs ? .close : .none
            }
            if let start = headClockStartMs {
                return nowMs - start > rules.headerTimeoutMs ? .close : .none
            }
            return nowMs - lastActiveMs > rules.idleTimeoutMs ? .close : .none
        case .readingBody:
            guard nowMs > deadlineMs else { return .none }
            state = .awaitingHead
            closeAfterWrite = true
            return .respondTimeout
        case .lingering:
            return nowMs > deadlineMs ? .close : .none
        case .waitingForHandler, .closed:
            return .none
        }
    }

    /// A graceful drain began: `.close` when idle (nothing pending, and no request was started since
    /// the last answer), else `.none` (the connection closes after its current response).
    mutating func drainBegun(hasBufferedInput: Bool, writePending: Bool) -> Action {
        guard isIdle(hasBufferedInput: hasBufferedInput, writePending: writePending) else { return .none }
        return headClockStartMs == nil || served == 0 ? .close : .none
    }
}
