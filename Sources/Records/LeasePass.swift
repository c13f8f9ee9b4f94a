import Synchronization

/// One pass of background work run by `LeasedRunner` under its lease: the fence to pass to every write,
/// whether the lease is lost (the pass must stop at once, writing nothing more), and whether the runner
/// is stopping (the pass finishes what it started, writes its outcome under the lease, and starts
/// nothing new).
public final class LeasePass: Sendable {
    /// The lease the pass runs under (its token fences the writes).
    public let lease: Lease
    /// The store of the lease.
    private let store: any LeaseStore
    /// The clock (epoch ms).
    private let now: @Sendable () -> Int64
    /// Set when the runner saw the lease lost, or a fenced write was refused.
    private let lostFlag = Atomic<Bool>(false)
    /// Set when the runner is stopping.
    private let stoppingFlag = Atomic<Bool>(false)
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

    /// True while the pass may start its next item: the lease is not lost and the runner is not stopping.
    public var mayContinue: Bool { !stoppingFlag.load(ordering: .acquiring) && !isLost }

    /// True while the pass may start its next item (`mayContinue`) and the lease holds, by this process's
    /// clock, for at least `ms` more: work
    /// that cannot be fenced (a call to another system that takes up to `ms`) starts only then, so that it
    /// ends before another holder could take the lease over.
    public func holds(forAtLeastMs ms: Int64) -> Bool {
        mayContinue && now() + ms < heldUntilMs.load(ordering: .relaxed)
    }

    /// Runs `body`'s writes fenced by the lease (`LeaseStore.fenced`, durable unless `durable` is false);
    /// `.lost` (and the pass marked lost) when it no longer holds, without writing.
    public func fenced<Value: Sendable>(
        durable: Bool = true, _ body: (any FencedWrites) throws(RecordsError) -> Value
    ) throws(RecordsError) -> LeaseFenced<Value> {
        guard !isLost else { return .lost(nil) }
        let outcome = try store.fenced(by: lease, nowMs: now(), durable: durable, body)
        if case .lost = outcome { markLost() }
        return outcome
    }

    /// Tells the pass the runner is stopping (its fenced writes still go through while the lease holds).
    func markStopping() { stoppingFlag.store(true, ordering: .releasing) }

    /// Marks the pass lost.
    func markLost() { lostFlag.store(true, ordering: .releasing) }

    /// Notes a renewal of the lease until `untilMs`.
    func renewed(until untilMs: Int64) { heldUntilMs.store(untilMs, ordering: .relaxed) }
}
