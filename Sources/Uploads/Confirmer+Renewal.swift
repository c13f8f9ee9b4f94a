import Records
import System

extension Confirmer {
    /// The claims this process's confirmations hold right now, by image key, and whether the renewer runs.
    struct HeldClaims: Sendable {
        /// Image key to token.
        var claims: [String: String] = [:]
        /// Whether a renewer thread is running (it ends when no claim is held).
        var renewing = false
    }

    /// Notes that `token` holds the claim on `imageKey` while a step moves its objects: a renewer extends
    /// it every quarter lease until `letGo`, so the lease can be short (a process killed mid-step frees
    /// the key within one lease) however long the copy takes.
    func hold(_ imageKey: String, token: String) {
        let start = held.withLock { state -> Bool in
            state.claims[imageKey] = token
            guard !state.renewing else { return false }
            state.renewing = true
            return true
        }
        guard start else { return }
        PThread.detach(name: "presignd-claims") { [self] in renew() }
    }

    /// The step of `token` on `imageKey` ended (recorded, failed, or fenced): its claim is not renewed.
    func letGo(_ imageKey: String, token: String) {
        held.withLock { state in
            if state.claims[imageKey] == token { state.claims[imageKey] = nil }
        }
    }

    /// The renewer: every quarter lease, extends each held claim; one no longer held (taken over after a
    /// stall) is dropped. Ends when no claim is held.
    private func renew() {
        let every = max(1, Int(claimLeaseMs / 4))
        while true {
            PThread.sleep(milliseconds: every)
            let claims = held.withLock { state -> [String: String]? in
                if state.claims.isEmpty {
                    state.renewing = false
                    return nil
                }
                return state.claims
            }
            guard let claims else { return }
            for (key, token) in claims {
                let kept = try? store.renewClaim(
                    imageKey: key, token: token, nowMs: env.nowMillis(), leaseMs: claimLeaseMs)
                if kept == false { letGo(key, token: token) }
            }
        }
    }
}
