import System

#if canImport(Glibc)
    import Glibc
#endif

/// One lane of the intent writer (`IntentWriter`): commits the intents routed to it in batches from
/// its own thread, and tells each caller when its intent is stored, so a URL is answered only once its
/// intent is durable.
///
/// `submit(_:completion:)` appends under a mutex and returns at once (callable from an event loop);
/// the completion is called exactly once: `.stored` after the commit holding the intent, `.refused`
/// (the queue is full, the lane is shut down, or the store refused the intent as bad), or
/// `.timedOut` when it was not stored within `maxWaitMs` (a store down, stalled or far behind).
///
/// A commit starts as soon as the previous one ended, with everything queued up to `batchSize`: no
/// timer, so an intent alone is committed at once, and under load the batch grows while the previous
/// commit runs; the wait is about one commit, the throughput the batch over the commit time. A batch
/// the store refuses as bad is split so that one bad intent is refused alone. A database outage
/// (`.unavailable`) is retried with back-off (20 ms doubling to `maxRetryDelayMs`); intents whose
/// callers have timed out meanwhile are left out of the retries (no URL names them). At most
/// `maxPending` intents are queued or being written: beyond, `submit` refuses at once. A separate
/// deadline thread ends the waits at `maxWaitMs` even while the writer is held inside a stalled store
/// call.
final class IntentLane: Sendable {
    typealias Completion = IntentWriter.Completion

    /// Who waits for a queued intent.
    enum Waiter {
        /// A caller, to be told the outcome.
        case waiting(Completion)
        /// A caller told `.timedOut`: the intent need not be written any more.
        case timedOut
    }

    /// The queue shared by callers, the writer thread and the deadline thread.
    struct State {
        /// Intents waiting to be written, oldest first. The one queued last has `nextSequence - 1`.
        /// A batch is handed to the store as this very array, without copies, unless waits ended.
        var queue: [UploadIntent] = []
        /// Who waits for each queued intent (parallel to `queue`).
        var waiters: [Waiter] = []
        /// When each queued intent was enqueued (parallel to `queue`), for its deadline.
        var enqueuedAtNanos: [UInt64] = []
        /// The quota reservation each queued intent asks for (parallel to `queue`); empty while none of
        /// the queued intents asks for one (quotas off: nothing per intent).
        var reservations: [QuotaRequest?] = []
        /// The batch being written (sequences `doneSequence + 1` on), visible until it has committed.
        var inFlight: [UploadIntent] = []
        /// Who waits for each intent of the batch being written.
        var inFlightWaiters: [Waiter] = []
        /// When each intent of the batch being written was enqueued.
        var inFlightEnqueuedAtNanos: [UInt64] = []
        /// The quota reservations of the batch being written (empty: none asks for one).
        var inFlightReservations: [QuotaRequest?] = []
        /// How many intents are queued or being written.
        var unwritten = 0
        /// Callers waiting for an outcome (entries `.waiting`).
        var waiting = 0
        /// The sequence number the next intent gets.
        var nextSequence: UInt64 = 1
        /// Every intent with a sequence number up to this one has been written or dropped.
        var doneSequence: UInt64 = 0
        /// Every intent up to this sequence number was checked by the deadline thread.
        var expiredThrough: UInt64 = 0
        /// Set by `shutdown`: no new intents; the writer drains the queue and exits.
        var stopping = false
        /// Set by the writer thread as it exits.
        var exited = false
        /// Set by the deadline thread as it exits.
        var deadlineExited = false
        /// Set while the deadline thread waits with no waiter to time: the first `submit` signals it.
        var deadlineIdle = false
        /// Intents refused because `maxPending` were already waiting.
        var dropped = 0
        /// Outcomes so far, for metrics and tests.
        var stored = 0
        /// Waits ended by the deadline.
        var timedOut = 0
        /// Intents refused (full queue, shut down, or a bad intent).
        var refused = 0
        /// Intents not stored because their owner's daily quota was reached.
        var quotaExceeded = 0
    }

    /// The store intents are written to.
    let store: any RecordStore
    /// The queue and the condition the threads wait on.
    private let monitor: Monitor<State>
    /// The deadline thread's own condition: woken when a first waiter comes while it is idle and when
    /// the writer exits, not by every commit (a wake-up per commit cost a context switch each).
    private let deadlineBell: MonitorCondition
    /// Wakes the writer: at the end of the calling event loop's turn (`LoopTurn`), so that one commit
    /// takes everything the turn queued; at once on any other thread.
    private let wakeWriter: TurnEndAction
    /// The largest batch.
    private let batchSize: Int
    /// How many intents wait in the queue (not yet taken by a commit), as of the last change: read
    /// without the lock by `IntentWriter` to pick a lane.
    let queuedHint = Counter()
    /// Called (from the writer thread, or from `submit` when refusing) when intents are refused, and
    /// at the start of an outage.
    private let onError: @Sendable (RecordsError) -> Void
    /// The most intents queued or being written at once, counted in `unwrittenTotal` (the lanes of one
    /// writer share both); beyond it `submit` refuses at once.
    let maxPending: Int
    /// Intents queued or being written, in this lane and every lane sharing this counter.
    let unwrittenTotal: Counter
    /// The longest a `submit` caller waits for its outcome, in milliseconds: then `.timedOut`.
    let maxWaitMs: Int
    /// The longest wait between two attempts at a batch during an outage, in milliseconds.
    let maxRetryDelayMs: Int
    /// How long a shutdown keeps retrying a batch during an outage before it drops it, in milliseconds.
    let shutdownRetryMs: Int

    /// Starts the writer and deadline threads for `store`: batches of up to `batchSize`, at most
    /// `maxPending` intents waiting (`records.intentQueueLimit`) as counted by `unwrittenTotal` (shared
    /// with the other lanes of one writer), each `submit` answered within `maxWaitMs`
    /// (`records.intentCommitTimeoutMs`).
    init(
        store: any RecordStore, batchSize: Int, maxPending: Int = 100_000, maxWaitMs: Int = 2_000,
        maxRetryDelayMs: Int = 2_000, shutdownRetryMs: Int = 5_000, unwrittenTotal: Counter = Counter(),
        onError: @escaping @Sendable (RecordsError) -> Void
    ) {
        precondition(batchSize >= 1, "batchSize must be at least 1")
        precondition(maxPending >= batchSize, "maxPending must be at least batchSize")
        precondition(maxWaitMs >= 1, "maxWaitMs must be positive")
        precondition(maxRetryDelayMs >= 1 && shutdownRetryMs >= 0, "retry times must be positive")
        self.store = store
        self.maxPending = maxPending
        self.unwrittenTotal = unwrittenTotal
        self.maxWaitMs = maxWaitMs
        self.maxRetryDelayMs = maxRetryDelayMs
        self.shutdownRetryMs = shutdownRetryMs
        self.batchSize = batchSize
        self.onError = onError
        let monitor = Monitor(State())
        self.monitor = monitor
        let deadlineBell = MonitorCondition()
        self.deadlineBell = deadlineBell
        wakeWriter = TurnEndAction { monitor.broadcast() }
        let retry = Retry(maxDelayMs: maxRetryDelayMs, shutdownMs: shutdownRetryMs)
        PThread.detach(name: "presignd-intent-writer") {
            [store, monitor, batchSize, onError, queuedHint, unwrittenTotal] in
            Self.run(
                store: store, monitor: monitor, deadlineBell: deadlineBell, batchSize: batchSize, retry: retry,
                queued: queuedHint, unwrittenTotal: unwrittenTotal, onError: onError)
        }
        let waitNanos = UInt64(maxWaitMs) * 1_000_000
        PThread.detach(name: "presignd-intent-deadline") { [monitor] in
            Self.expire(monitor: monitor, bell: deadlineBell, waitNanos: waitNanos)
        }
    }

    /// The writer's outage retry settings.
    struct Retry: Sendable {
        /// The longest wait between attempts.
        var maxDelayMs: Int
        /// How long attempts go on once a shutdown began.
        var shutdownMs: Int
    }

    deinit { shutdown() }

    /// Queues `intent` for the next commit and returns at once (never blocks on the database);
    /// `completion` is called exactly once with the outcome (`.stored` only after the commit). A full
    /// queue or a shut-down writer is `.refused` at once, on this thread. The completion must not block:
    /// it runs on the writer's or the deadline thread. With `reserving`, the intent is stored only with
    /// that daily quota reservation, in the same commit (`QuotaStore.putIntents(_:reserving:)`), else it
    /// is `.quotaExceeded`; a store that keeps no quotas ignores it.
    func submit(_ intent: UploadIntent, reserving: QuotaRequest? = nil, completion: @escaping Completion) {
        let now = MonotonicClock.nanoseconds()
        let (outcome, wake, ring) = monitor.withLock { state -> (EnqueueOutcome, Bool, Bool) in
            let outcome = Self.admit(&state, maxPending: maxPending, unwrittenTotal: unwrittenTotal)
            guard case .queued = outcome else { return (outcome, false, false) }
            if reserving != nil || !state.reservations.isEmpty {
                // The first reservation of this queue: the intents before it asked for none.
                if state.reservations.isEmpty { state.reservations = Array(repeating: nil, count: state.queue.count) }
                state.reservations.append(reserving)
            }
            append(&state, intent, completion, now: now)
            state.waiting += 1
            // Wake the writer when the queue became non-empty (a commit is due: at the end of this
            // event-loop turn, or at once off a loop), the deadline thread when it idles.
            let ring = state.deadlineIdle
            if ring { state.deadlineIdle = false }
            queuedHint.set(state.queue.count)
            return (.queued, state.queue.count == 1, ring)
        }
        if wake { LoopTurn.atTurnEnd(wakeWriter) }
        if ring { deadlineBell.signal() }
        if let error = report(outcome, imageKey: intent.imageKey) {
            monitor.withLock { state in state.refused += 1 }
            completion(.refused(error))
        }
    }

    /// Whether one more intent may be queued (counting a refusal under the lock); a queued one is
    /// counted in `unwrittenTotal`.
    private static func admit(_ state: inout State, maxPending: Int, unwrittenTotal: Counter) -> EnqueueOutcome {
        guard !state.stopping else { return .shutDown }
        guard unwrittenTotal.incrementIfBelow(maxPending) else {
            state.dropped += 1
            // Report the first drop and every 10,000th after it, not one line per request.
            return state.dropped % 10_000 == 1 ? .full(state.dropped) : .fullQuiet
        }
        return .queued
    }

    /// Appends one intent to the queue (under the lock).
    private func append(_ state: inout State, _ intent: UploadIntent, _ completion: @escaping Completion, now: UInt64) {
        state.nextSequence += 1
        if state.queue.capacity == 0 {
            state.queue.reserveCapacity(batchSize)
            state.waiters.reserveCapacity(batchSize)
            state.enqueuedAtNanos.reserveCapacity(batchSize)
        }
        state.queue.append(intent)
        state.waiters.append(.waiting(completion))
        state.enqueuedAtNanos.append(now)
        state.unwritten += 1
    }

    /// Reports a refusal to `onError` (outside the lock); the error, or nil when the intent was queued.
    private func report(_ outcome: EnqueueOutcome, imageKey: String) -> RecordsError? {
        switch outcome {
        case .queued: return nil
        case .fullQuiet:
            return .unavailable("\(maxPending) intents are waiting for the database")
        case .shutDown:
            let error = RecordsError.unavailable("the intent writer is shut down; intent \(imageKey) dropped")
            onError(error)
            return error
        case .full(let count):
            let error = RecordsError.unavailable(
                "\(maxPending) intents are waiting for the database; \(count) dropped so far")
            onError(error)
            return error
        }
    }

    /// True while the queue is full (with the lanes sharing its bound): `submit` refuses until the
    /// database takes the backlog.
    var isFull: Bool { unwrittenTotal.count >= maxPending }

    /// What `submit` did with an intent.
    private enum EnqueueOutcome {
        /// Queued for writing.
        case queued
        /// Dropped: the writer is shut down.
        case shutDown
        /// Dropped: the queue is full; report it (with the count so far).
        case full(Int)
        /// Dropped: the queue is full; already reported.
        case fullQuiet
    }

    /// Intents dropped so far because the queue was full.
    var droppedCount: Int {
        monitor.withLock { state in state.dropped }
    }

    /// Outcomes given to `submit` callers so far: stored, timed out, refused (a full queue or a shut-down
    /// writer counts here too).
    var outcomeCounts: (stored: Int, timedOut: Int, refused: Int) {
        monitor.withLock { state in (state.stored, state.timedOut, state.refused) }
    }

    /// Intents not stored so far because their owner's daily quota was reached.
    var quotaExceededCount: Int {
        monitor.withLock { state in state.quotaExceeded }
    }

    /// How many intents are queued or being written.
    var pendingCount: Int {
        monitor.withLock { state in state.unwritten }
    }

    /// Refuses later intents and tells the writer thread to drain the queue and exit, without waiting.
    func beginShutdown() {
        monitor.withLock { state in state.stopping = true }
        monitor.broadcast()
    }

    /// Writes everything queued, then stops both threads; later intents are refused and reported.
    /// Every waiting caller has its outcome when this returns. Safe to call more than once.
    func shutdown() {
        beginShutdown()
        monitor.withLock { state, waiter in
            while !state.exited || !state.deadlineExited { waiter.wait() }
        }
    }
}
