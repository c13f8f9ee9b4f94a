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
public final class GroupCommitter: Sendable {
    /// One caller's record and, once committed, its outcome.
    final class Ticket: @unchecked Sendable {
        /// The record to insert.
        let record: ImageRecord
        /// Set by the committer thread before it signals `done`; read by the caller after.
        var result: Result<InsertOutcome, RecordsError>?
        /// Signalled when `result` is set.
        let done = DispatchSemaphore(value: 0)

        /// A ticket for `record`.
        init(_ record: ImageRecord) { self.record = record }
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
    /// The largest batch.
    public let maxBatch: Int
    /// The queue and the condition the committer waits on.
    private let monitor: Monitor<State>
    /// Batches committed by this committer.
    private let batches: Counter

    /// Starts a committer thread for `store` that commits up to `maxBatch` records per transaction
    /// (`maxBatch: 1` gives one commit per record, for comparison).
    public init(store: any RecordStore, maxBatch: Int) {
        precondition(maxBatch >= 1, "maxBatch must be at least 1")
        self.store = store
        self.maxBatch = maxBatch
        let monitor = Monitor(State())
        let batches = Counter()
        self.monitor = monitor
        self.batches = batches
        PThread.detach(name: "presignd-group-commit") { [store, maxBatch, monitor, batches] in
            Self.run(store: store, maxBatch: maxBatch, monitor: monitor, batches: batches)
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
        let ticket = Ticket(record)
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
    private static func run(store: any RecordStore, maxBatch: Int, monitor: Monitor<State>, batches: Counter) {
        while true {
            let batch: [Ticket] = monitor.withLock { state, waiter in
                while state.queue.isEmpty && !state.stopping { waiter.wait() }
                let count = min(maxBatch, state.queue.count)
                let batch = Array(state.queue.prefix(count))
                state.queue.removeFirst(count)
                return batch
            }
            if batch.isEmpty { break }
            commit(batch, to: store, batches: batches)
        }
        monitor.withLock { state in state.exited = true }
        monitor.broadcast()
    }

    /// Commits one batch, counts it, and hands each ticket its outcome.
    private static func commit(_ batch: [Ticket], to store: any RecordStore, batches: Counter) {
        do {
            let outcomes = try store.insertRecords(batch.map(\.record))
            batches.add()
            for (ticket, outcome) in zip(batch, outcomes) { finish(ticket, .success(outcome)) }
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

    /// Sets a ticket's result and wakes its caller.
    private static func finish(_ ticket: Ticket, _ result: Result<InsertOutcome, RecordsError>) {
        ticket.result = result
        ticket.done.signal()
    }
}
