import Records

/// What a background pass (the intent janitor, the multipart janitor, the reconciler, the event processor)
/// checks before each item it handles, and what its writes that settle work go through.
///
/// Under a lease (`PassFence.lease`: the janitor's passes, run by a `LeasedRunner` so that one instance
/// at a time runs them) the fence holds while the lease does, and `write` runs a batch's writes in ONE
/// transaction that the store first checks the lease's fencing token in: a pass whose lease was taken
/// over writes nothing more (`write` answers nil) and stops where it is; the next holder finishes the
/// work. Unfenced (`PassFence.always`, or a bare check: one process, unit tests), `write` sends each
/// write straight to the store, in its own transaction. Every write a pass makes to an intent is also
/// fenced by that intent's claim (`ClaimStore`), under a lease or not.
public struct PassFence: Sendable {
    /// How the fence decides.
    private enum Kind: Sendable {
        /// Holds while the check says so; writes go straight to the store.
        case unfenced(@Sendable () -> Bool)
        /// Holds while the lease does; writes are fenced by its token.
        case lease(LeasePass)
    }

    private let kind: Kind

    /// An unfenced fence that holds while `check` says so.
    public init(_ check: @escaping @Sendable () -> Bool) { kind = .unfenced(check) }

    /// A fence of the pass `pass` under its lease.
    private init(pass: LeasePass) { kind = .lease(pass) }

    /// The unfenced fence that always holds: one instance (tests), writes straight to the store.
    public static let always = PassFence { true }

    /// The fence of a pass run under a lease: holds until the lease is lost; writes are fenced by its
    /// token.
    public static func lease(_ pass: LeasePass) -> PassFence { PassFence(pass: pass) }

    /// Whether the pass may handle its next item (under a lease: not lost, the runner not stopping).
    public var holds: Bool {
        switch kind {
        case .unfenced(let check): check()
        case .lease(let pass): pass.mayContinue
        }
    }

    /// The lease the fence is of, if any.
    public var lease: Lease? {
        if case .lease(let pass) = kind { return pass.lease }
        return nil
    }

    /// Runs `body`'s writes to `store`: under a lease in one transaction fenced by its token, answering nil
    /// (nothing written, the pass marked lost) when it no longer holds; unfenced, straight to `store`.
    public func write<Value: Sendable>(
        to store: any LifecycleStore, _ body: (any FencedWrites) throws(RecordsError) -> Value
    ) throws(RecordsError) -> Value? {
        switch kind {
        case .unfenced:
            return try body(DirectWrites(store: store))
        case .lease(let pass):
            switch try pass.fenced(body) {
            case .done(let value): return value
            case .lost: return nil
            }
        }
    }
}

/// The unfenced form of `FencedWrites`: each write straight to the store, in its own transaction.
private struct DirectWrites: FencedWrites {
    let store: any LifecycleStore

    func deleteIntents(imageKeys: [String]) throws(RecordsError) { try store.deleteIntents(imageKeys: imageKeys) }

    func finishObjectDeletions(_ objectKeys: [String]) throws(RecordsError) {
        try store.finishObjectDeletions(objectKeys)
    }

    func releaseQuotas(imageKeys: [String]) throws(RecordsError) -> Int {
        try store.releaseQuotas(imageKeys: imageKeys)
    }

    func removeMultipartUploads(_ uploads: [(objectKey: String, uploadId: String)]) throws(RecordsError) {
        try store.removeMultipartUploads(uploads)
    }

    func settleWebhookDelivery(seq: Int64, attempt: WebhookAttempt, nowMs: Int64) throws(RecordsError) -> Bool {
        try store.settleWebhookDelivery(seq: seq, attempt: attempt, nowMs: nowMs)
    }

    func settleScan(id: String, _ settlement: ScanSettlement, events: (ImageRecord) -> [OutboxEvent])
        throws(RecordsError) -> ImageRecord?
    {
        try store.settleScan(id: id, settlement, events: events)
    }
}
