import Dispatch
import System

#if canImport(Glibc)
    import Glibc
#endif

/// Makes record inserts durable in groups: many concurrent callers share one transaction (one fsync).
///
/// Each caller blocks in `insert` until the batch holding its record has committed. One committer thread
/// takes whatever is queued (up to `maxBatch`) as a batch, commits it with `insertRecords`, wakes each
/// waiter with its own outcome, and takes the next batch; while it commits, new callers queue up, so the
/// batch size follows the load by itself. If a batch fails with anything but `.unavailable`, its records
/// are retried one by one, so one bad record fails alone.
///
/// Records of claimed intents (`insertClaimed`, over a `ClaimStore`) are grouped the same way: a batch's
/// claimed records are settled by one `recordClaimed` transaction, its plain ones by one `insertRecords`.
public final class GroupCommitter: Sendable {
    /// What a ticket's commit answered.
    enum Outcome {
        /// A plain insert's.
        case inserted(InsertOutcome)
        /// A claimed record's.
        case claimed(ClaimFinish)
    }

    /// One caller's record and, once committed, its outcome.
    final class Ticket: @unchecked Sendable {
        /// The record to insert.
        let record: ImageRecord
        /// The claim's fence token and the time of settling, for a claimed record; nil for a plain insert.
        let claim: (token: String, nowMs: Int64)?
        /// The outbox events of a claimed record, written with it (`ClaimedRecord.events`).
        let events: [OutboxEvent]
        /// Set by the committer thread before it signals `done`; read by the caller after.
        var result: Result<Outcome, RecordsError>?
        /// Signalled when `result` is set.
        let done = DispatchSemaphore(value: 0)

        /// A ticket for `record` (claimed under `claim`, reporting `events`).
        init(_ record: ImageRecord, claim: (token: String, nowMs: Int64)? = nil, events: [OutboxEvent] = []) {
            self.record = record
            self.claim = claim
            self.events = events
        }
    }

    /// The queue shared by callers and the committer thread.
    struct State {
        /// Records waiting for the next batch.
        var queue: [Ticket] = []
        /// Set by `shutdown`: no new inserts; the committer drains the queue and exits.
        var stopping = false
        /// Set by the committer thread as it exits.
        var exited = false
    }

    /// The store batches are committed to.
    public let store: any RecordStore
    /// Where claimed records are settled (`insertClaimed`); nil: only plain inserts.
    private let claims: (any ClaimStore)?
    /// The largest batch.
    public let maxBatch: Int
    /// The queue and the condition the committer waits on.
    private let monitor: Monitor<State>
    /// Batches committed by this committer.
    private let batches: Counter

    /// Starts a committer thread for `store` that commits up to `maxBatch` records per transaction
    /// (`maxBatch: 1` gives one commit per record, for comparison).
    public convenience init(store: any RecordStore, maxBatch: Int) {
        self.init(store: store, claims: nil, maxBatch: maxBatch)
    }

    /// A committer whose claimed records (`insertClaimed`) are settled in `store`'s claims.
    public convenience init(store: any RecordStore & ClaimStore, maxBatch: Int) {
        self.init(store: store, claims: store, maxBatch: maxBatch)
    }

    /// The committer of `store`, settling claimed records in `claims`.
    private init(store: any RecordStore, claims: (any ClaimStore)?, maxBatch: Int) {
        precondition(maxBatch >= 1, "maxBatch must be at least 1")
        self.store = store
        self.claims = claims
        self.maxBatch = maxBatch
        let monitor = Monitor(State())
        let batches = Counter()
        self.monitor = monitor
        self.batches = batches
        PThread.detach(name: "presignd-group-commit") { [store, claims, maxBatch, monitor, batches] in
            Self.run(store: store, claims: claims, maxBatch: maxBatch, monitor: monitor, batches: batches)
        }
    }

    deinit { shutdown() }

    /// Batches committed so far (each one transaction), counted before their callers are woken.
    public var batchesCommitted: Int { batches.count }

    /// Records queued for the next batch (not counting the batch being committed).
    public var queuedCount: Int { monitor.withLock { state in state.queue.count } }

    /// Inserts `record` and returns once the batch holding it is durable (or has failed). Blocks the calling
    /// thread: call from a worker thread, never from an event loop.
    public func insert(_ record: ImageRecord) throws(RecordsError) -> InsertOutcome {
        guard case .inserted(let outcome) = try commit(Ticket(record)) else {
            preconditionFailure("a plain insert answered as a claimed one")
        }
        return outcome
    }

    /// Settles the claim `token` holds on `record`'s key with `record` (`ClaimStore.recordClaimed`) at
    /// `nowMs`, with the outbox `events` its insert reports, and returns once the batch holding it is
    /// durable: `.recorded`, `.existing`, or `.fenced` when the token no longer holds the claim (nothing was
    /// written). Blocks like `insert`.
    public func insertClaimed(_ record: ImageRecord, token: String, nowMs: Int64, events: [OutboxEvent] = [])
        throws(RecordsError) -> ClaimFinish
    {
        precondition(claims != nil, "insertClaimed needs a committer made over a ClaimStore")
        guard case .claimed(let finish) = try commit(Ticket(record, claim: (token, nowMs), events: events)) else {
            preconditionFailure("a claimed insert answered as a plain one")
        }
        return finish
    }

    /// Queues `ticket` and waits for its batch.
    private func commit(_ ticket: Ticket) throws(RecordsError) -> Outcome {
        let accepted = monitor.withLock { state in
            guard !state.stopping else { return false }
            state.queue.append(ticket)
            return true
        }
        guard accepted else { throw .unavailable("the group committer is shut down") }
        monitor.broadcast()
        ticket.done.wait()
        return try ticket.result!.get()
    }

    /// Commits what is queued, then stops the committer thread; later inserts fail with `.unavailable`.
    /// Safe to call more than once.
    public func shutdown() {
        monitor.withLock { state in state.stopping = true }
        monitor.broadcast()
        monitor.withLock { state, waiter in
            while !state.exited { waiter.wait() }
        }
    }

    /// The committer thread: take a batch, commit it, wake its waiters; until stopped and drained.
    private static func run(
        store: any RecordStore, claims: (any ClaimStore)?, maxBatch: Int, monitor: Monitor<State>, batches: Counter
    ) {
        while true {
            let batch: [Ticket] = monitor.withLock { state, waiter in
                while state.queue.isEmpty && !state.stopping { waiter.wait() }
                let count = min(maxBatch, state.queue.count)
                let batch = Array(state.queue.prefix(count))
                state.queue.removeFirst(count)
                return batch
            }
            if batch.isEmpty { break }
            let plain = batch.filter { $0.claim == nil }
            if !plain.isEmpty { commit(plain, to: store, batches: batches) }
            if let claims {
                let claimed = batch.filter { $0.claim != nil }
                if !claimed.isEmpty { settle(claimed, in: claims, batches: batches) }
            }
        }
        monitor.withLock { state in state.exited = true }
        monitor.broadcast()
    }

    /// Commits one batch, counts it, and hands each ticket its outcome.
    private static func commit(_ batch: [Ticket], to store: any RecordStore, batches: Counter) {
        do {
            let outcomes = try store.insertRecords(batch.map(\.record))
            batches.add()
            for (ticket, outcome) in zip(batch, outcomes) { finish(ticket, .success(.inserted(outcome))) }
        } catch {
            if case .unavailable = error {
                for ticket in batch { finish(ticket, .failure(error)) }
                return
            }
            guard batch.count > 1 else {
                finish(batch[0], .failure(error))
                return
            }
            for ticket in batch { commit([ticket], to: store, batches: batches) }
        }
    }

    /// Settles one batch of claimed records in one `recordClaimed` transaction, counts it, and hands
    /// each ticket its outcome; on an error other than `.unavailable`, each is retried alone.
    private static func settle(_ batch: [Ticket], in claims: any ClaimStore, batches: Counter) {
        do {
            let nowMs = batch.map { $0.claim!.nowMs }.max() ?? 0
            let finishes = try claims.recordClaimed(
                batch.map { ClaimedRecord(record: $0.record, token: $0.claim!.token, events: $0.events) }, nowMs: nowMs)
            batches.add()
            for (ticket, outcome) in zip(batch, finishes) { finish(ticket, .success(.claimed(outcome))) }
        } catch {
            if case .unavailable = error {
                for ticket in batch { finish(ticket, .failure(error)) }
                return
            }
            guard batch.count > 1 else {
                finish(batch[0], .failure(error))
                return
            }
            for ticket in batch { settle([ticket], in: claims, batches: batches) }
        }
    }

    /// Sets a ticket's result and wakes its caller.
    private static func finish(_ ticket: Ticket, _ result: Result<Outcome, RecordsError>) {
        ticket.result = result
        ticket.done.signal()
    }
}
