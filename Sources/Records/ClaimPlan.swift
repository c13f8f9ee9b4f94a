/// The decision `claimIntent` makes, the same in every store: given what is stored, what to do. Pure.
package enum ClaimPlan {
    /// What the transaction must do.
    package enum Step: Equatable {
        /// Answer this and change nothing.
        case answer(ClaimOutcome)
        /// Write `claim` (insert or replace the row) and answer `.won(claim, tookOverFrom:)`.
        case take(IntentClaim, tookOverFrom: IntentClaim?)
    }

    /// The step for `request` given the key's record and claim.
    package static func step(for request: ClaimRequest, record: ImageRecord?, current: IntentClaim?) -> Step {
        if let record { return .answer(.recorded(record)) }
        let mine = IntentClaim(
            imageKey: request.imageKey, intentCreatedAtMs: request.intentCreatedAtMs,
            claimant: request.claimant.rawValue, token: request.token, state: .claimed,
            leaseUntilMs: request.nowMs + max(0, request.leaseMs), claimedAtMs: request.nowMs,
            updatedAtMs: request.nowMs)
        guard let current else { return .take(mine, tookOverFrom: nil) }
        switch current.state {
        case .recorded, .expired:
            // A settled claim binds its own generation; a re-issued key (a newer intent) starts afresh.
            guard request.intentCreatedAtMs > current.intentCreatedAtMs else { return .answer(.finished(current)) }
            return .take(mine, tookOverFrom: nil)
        case .claimed:
            if current.token == request.token {
                var renewed = mine
                renewed.claimedAtMs = current.claimedAtMs
                return .take(renewed, tookOverFrom: nil)
            }
            guard current.leaseUntilMs <= request.nowMs else { return .answer(.held(current)) }
            return .take(mine, tookOverFrom: current)
        }
    }

    /// True when `token` holds `claim` (held, not settled).
    package static func holds(_ claim: IntentClaim?, token: String) -> Bool {
        guard let claim else { return false }
        return claim.state == .claimed && claim.token == token
    }
}
