/// The pure decisions of the lease protocol, shared by every store (each runs them inside its own
/// transaction or lock).
package enum LeasePlan {
    /// What to do with a request to hold `name` for `holder`.
    package enum Step: Equatable {
        /// Answer without writing (another holder's live lease).
        case answer(LeaseOutcome)
        /// Write this lease; `tookOver` when it replaces another holder's run-out lease.
        case write(Lease, tookOver: Bool)
    }

    /// The step for `holder` asking for `name` at `nowMs` for `ttlMs`, given the stored row: no row is a
    /// first lease (token 1); the caller's own live lease is extended under its token; a live lease of
    /// another holder is `.held`; a run-out one (`expiresAtMs <= nowMs`, released ones included) is taken
    /// over under the next token, even by its old holder, so writes fenced by the old token are refused.
    package static func step(current: Lease?, name: String, holder: String, nowMs: Int64, ttlMs: Int64) -> Step {
        let until = nowMs + max(1, ttlMs)
        guard let current else {
            return .write(
                Lease(name: name, holder: holder, token: 1, expiresAtMs: until, acquiredAtMs: nowMs), tookOver: false)
        }
        if current.expiresAtMs > nowMs {
            guard current.holder == holder else { return .answer(.held(current)) }
            var renewed = current
            renewed.expiresAtMs = max(current.expiresAtMs, until)
            return .write(renewed, tookOver: false)
        }
        let next = Lease(name: name, holder: holder, token: current.token + 1, expiresAtMs: until, acquiredAtMs: nowMs)
        return .write(next, tookOver: current.holder != holder)
    }

    /// True when `stored` is still `lease` (same holder and token) and has not run out at `nowMs`.
    package static func holds(_ stored: Lease?, _ lease: Lease, nowMs: Int64) -> Bool {
        guard let stored else { return false }
        return stored.token == lease.token && stored.holder == lease.holder && stored.expiresAtMs > nowMs
    }
}
