/// Commits upload intents to the store in batches, and tells each caller when its intent is stored, so
/// a URL is answered only once its intent is durable.
///
/// The work is done by one or more lanes (`IntentLane`): each has its own queue, writer thread and
/// deadline thread, and commits its batches back to back (no timer). Every intent whose key may have
/// been issued before goes to the first lane, so a re-issued key is never written by two commits at
/// once and the newest always lands last; an intent with a fresh key goes there too until that lane's
/// queue is long, then to the lane with the shortest queue (`lane(for:queued:count:)`). One lane
/// (SQLite, whose writes are serialized by its one writer connection anyway) is the writer as it
/// always was; a store that commits faster with several transactions in flight says so
/// (`RecordStore.intentWriteLanes`: PostgreSQL's commits wait for round trips and a WAL flush, during
/// which a second lane's commit proceeds on another connection).
///
/// `submit(_:reserving:completion:)` returns at once (callable from an event loop); the completion is
/// called exactly once: `.stored` after the commit holding the intent, `.refused` (the queue is full,
/// the writer is shut down, or the store refused the intent as bad), `.quotaExceeded`, or `.timedOut`
/// when it was not stored within `maxWaitMs` (a store down, stalled or far behind). At most
/// `maxPending` intents are queued or being written in all lanes together.
public final class IntentWriter: Sendable {
    /// A caller's completion: called once, from a writer thread, a deadline thread or `submit`.
    public typealias Completion = @Sendable (IntentOutcome) -> Void

    /// The store intents are written to.
    public let store: any RecordStore
    /// The most intents queued or being written at once; beyond it `submit` refuses at once.
    public let maxPending: Int
    /// The longest a `submit` caller waits for its outcome, in milliseconds: then `.timedOut`.
    public let maxWaitMs: Int
    /// The longest wait between two attempts at a batch during an outage, in milliseconds.
    public let maxRetryDelayMs: Int
    /// How long a shutdown keeps retrying a batch during an outage before it drops it, in milliseconds.
    public let shutdownRetryMs: Int
    /// The lanes; an intent's is picked by its image key.
    private let lanes: [IntentLane]

    /// Starts the lanes for `store` (`lanes`, else as many as the store asks for): batches of up to
    /// `batchSize`, at most `maxPending` intents waiting in all (`records.intentQueueLimit`), each
    /// `submit` answered within `maxWaitMs` (`records.intentCommitTimeoutMs`).
    public init(
        store: any RecordStore, batchSize: Int, maxPending: Int = 100_000, maxWaitMs: Int = 2_000,
        maxRetryDelayMs: Int = 2_000, shutdownRetryMs: Int = 5_000, lanes: Int? = nil,
        onError: @escaping @Sendable (RecordsError) -> Void
    ) {
        precondition(batchSize >= 1, "batchSize must be at least 1")
        precondition(maxPending >= batchSize, "maxPending must be at least batchSize")
        let count = max(1, lanes ?? store.intentWriteLanes)
        self.store = store
        self.maxPending = maxPending
        self.maxWaitMs = maxWaitMs
        self.maxRetryDelayMs = maxRetryDelayMs
        self.shutdownRetryMs = shutdownRetryMs
        // One bound for all lanes: the first lane, which takes every key that is not fresh, may fill it
        // alone, as the one writer did.
        let unwrittenTotal = Counter()
        self.lanes = (0..<count).map { _ in
            IntentLane(
                store: store, batchSize: batchSize, maxPending: maxPending, maxWaitMs: maxWaitMs,
                maxRetryDelayMs: maxRetryDelayMs, shutdownRetryMs: shutdownRetryMs, unwrittenTotal: unwrittenTotal,
                onError: onError)
        }
    }

    deinit { shutdown() }

    /// How many lanes commit at once.
    public var laneCount: Int { lanes.count }

    /// How many intents a lane's queue holds before fresh intents go to another lane: below it, the
    /// second lane's commits would be small, and a small commit costs PostgreSQL more per intent (its
    /// backend: about 34 µs per intent in commits of 16, 20 µs in commits of 33, 13.5 µs in 256;
    /// docs/benchmarks.md), which cost more throughput than the overlap gained at 64 connections.
    static let spillAt = 64

    /// The lane for `intent` among `queued` (each lane's queue length): lane 0 for every intent whose
    /// key may have been issued before (one lane writes a key's intents, in order); an intent with a
    /// fresh key (`UploadIntent.freshKey`) also goes to lane 0 until its queue holds `spillAt`, then to
    /// the lane with the shortest queue. A fresh key may go anywhere: nobody knows it before its URL
    /// is answered, which is after its commit, so no other intent of it can be in flight.
    static func lane(for intent: UploadIntent, queued: (Int) -> Int, count: Int) -> Int {
        guard count > 1, intent.freshKey else { return 0 }
        var best = 0
        var shortest = queued(0)
        guard shortest >= spillAt else { return 0 }
        for index in 1..<count {
            let length = queued(index)
            if length < shortest { (best, shortest) = (index, length) }
        }
        return best
    }

    /// Queues `intent` for the next commit of its lane and returns at once (never blocks on the
    /// database); `completion` is called exactly once with the outcome (`.stored` only after the
    /// commit). A full lane or a shut-down writer is `.refused` at once, on this thread. The completion
    /// must not block: it runs on a writer or deadline thread. With `reserving`, the intent is stored
    /// only with that daily quota reservation, in the same commit (`QuotaStore.putIntents(_:reserving:)`),
    /// else it is `.quotaExceeded`; a store that keeps no quotas ignores it.
    public func submit(_ intent: UploadIntent, reserving: QuotaRequest? = nil, completion: @escaping Completion) {
        let lanes = self.lanes
        lanes[Self.lane(for: intent, queued: { lanes[$0].queuedHint.count }, count: lanes.count)].submit(
            intent, reserving: reserving, completion: completion)
    }

    /// True while `maxPending` intents are queued or being written: `submit` refuses until the
    /// database takes the backlog.
    public var isFull: Bool { lanes[0].isFull }

    /// Intents dropped so far because their lane was full.
    public var droppedCount: Int { lanes.reduce(0) { $0 + $1.droppedCount } }

    /// Outcomes given to `submit` callers so far: stored, timed out, refused (a full queue or a shut-down
    /// writer counts here too).
    public var outcomeCounts: (stored: Int, timedOut: Int, refused: Int) {
        lanes.reduce((0, 0, 0)) { sum, lane in
            let counts = lane.outcomeCounts
            return (sum.0 + counts.stored, sum.1 + counts.timedOut, sum.2 + counts.refused)
        }
    }

    /// Intents not stored so far because their owner's daily quota was reached.
    public var quotaExceededCount: Int { lanes.reduce(0) { $0 + $1.quotaExceededCount } }

    /// How many intents are queued or being written.
    public var pendingCount: Int { lanes.reduce(0) { $0 + $1.pendingCount } }

    /// Writes everything queued, then stops every lane's threads; later intents are refused and
    /// reported. Every waiting caller has its outcome when this returns. Safe to call more than once.
    public func shutdown() {
        // All lanes begin to drain at once (each one's drain waits for its own batches only).
        for lane in lanes { lane.beginShutdown() }
        for lane in lanes { lane.shutdown() }
    }
}
