import Records
import System

/// Keeps one claim of a background pass alive while its step runs (the janitors' deletes and aborts,
/// which storage may take longer than a lease to answer): a thread renews the held claim every quarter
/// lease until it is let go, so no other claimant takes an intent over while its objects are deleted.
/// A renewal that finds the claim taken over (its lease ran out before a renewal, the database was away)
/// marks it lost: the pass sends nothing more for it. Started per pass, stopped (and joined) at its end.
final class ClaimRenewer: @unchecked Sendable {
    private let store: any ClaimStore
    private let leaseMs: Int64
    private let env: UploadEnvironment
    private let lock = Monitor()
    /// The held claim (image key, token) and whether it was found lost; guarded by `lock`.
    private var held: (key: String, token: String, lost: Bool)?
    private var stopping = false
    private var thread: PThread?

    /// A renewer of claims of `store` that hold `leaseMs`.
    init(store: any ClaimStore, leaseMs: Int64, env: UploadEnvironment) {
        self.store = store
        self.leaseMs = leaseMs
        self.env = env
    }

    /// Starts the thread.
    func start() {
        let every = max(1, Int(leaseMs / 4))
        thread = PThread(name: "presignd-renewer") { [self] in
            while true {
                let claim = lock.withLock { () -> (key: String, token: String)? in
                    if !stopping { lock.wait(millis: every) }
                    guard !stopping, let held, !held.lost else { return nil }
                    return (held.key, held.token)
                }
                if lock.withLock({ stopping }) { return }
                guard let claim else { continue }
                let kept =
                    (try? store.renewClaim(
                        imageKey: claim.key, token: claim.token, nowMs: env.nowMillis(), leaseMs: leaseMs)) ?? false
                lock.withLock {
                    if !kept, let h = held, h.key == claim.key, h.token == claim.token { held?.lost = true }
                }
            }
        }
    }

    /// Renews `token`'s claim on `key` from now on (instead of any other).
    func hold(_ key: String, token: String) { lock.withLock { held = (key, token, false) } }

    /// True when the held claim was found taken over: nothing more may be done under it.
    var lost: Bool { lock.withLock { held?.lost ?? false } }

    /// Stops renewing the held claim.
    func letGo() { lock.withLock { held = nil } }

    /// Stops the thread and waits for it.
    func stop() {
        lock.withLock { stopping = true }
        lock.broadcast()
        thread?.join()
        thread = nil
    }
}
