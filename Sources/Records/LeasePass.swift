import Synchronization

/// One pass of background work run by `LeasedRunner` under its lease: the fence to pass to every write,
/// and whether the lease is lost (the pass must stop at once when it is).
public final class LeasePass: Sendable {
    /// The lease the pass runs under (its token fences the writes).
    public let lease: Lease
    /// The store of the lease.
    private let store: any LeaseStore
    /// The clock (epoch ms).
    private let now: @Sendable () -> Int64
    /// Set when the runner saw the lease lost, or a fenced write was refused.
    private let lostFlag = Atomic<Bool>(false)
    /// Until when the lease is known to hold (renewals move it).
    private let heldUntilMs: Atomic<Int64>

    /// A pass under `lease`.
    init(lease: Lease, store: any LeaseStore, now: @escaping @Sendable () -> Int64) {
        self.lease = lease
        self.store = store
        self.now = now
        heldUntilMs = Atomic(lease.expiresAtMs)
    }

    /// True once the lease is lost or has run out by this process's clock: stop, write nothing more.
    public var isLost: Bool {
        lostFlag.load(ordering: .acquiring) || now() >= heldUntilMs.load(ordering: .relaxed)
    }

    /// True while the lease is not lost and holds, by this process's clock, for at least `ms` more: work
    /// that cannot be fenced (a call to another system that takes up to `ms`) starts only then, so that it
    /// ends before another holder could take the lease over.
    public func holds(forAtLeastMs ms: Int64) -> Bool {
        !lostFlag.load(ordering: .acquiring) && now() + ms < heldUntilMs.load(ordering: .relaxed)
    }

    /// Runs `body`'s writes fenced by the lease (`LeaseStore.fenced`); `.lost` (and the pass marked lost)
    /// when it no longer holds, without writing.
    public func fenced<Value: Sendable>(_ body: (any FencedWrites) throws(RecordsError) -> Value)
        throws(RecordsError) -> LeaseFenced<Value>
    {
        guard !isLost else { return .lost(nil) }
        let outcome = try store.fenced(by: lease, nowMs: now(), body)
        if case .lost = outcome { markLost() }
        return outcome
    }

    /// Marks the pass lost.
    func markLost() { lostFlag.store(true, ordering: .releasing) }

    /// Notes a renewal of the lease until `untilMs`.
    func renewed(until untilMs: Int64) { heldUntilMs.store(untilMs, ordering: .relaxed) }
}
