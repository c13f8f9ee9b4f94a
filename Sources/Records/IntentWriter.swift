import System

#if canImport(Glibc)
    import Glibc
#endif

/// Writes upload intents to the store in batches from its own thread, so issuing a URL never waits for
/// the database.
///
/// `enqueue` only appends under a mutex (callable from an event loop). The writer thread writes a batch
/// when `batchSize` intents are queued, when the oldest has waited `flushIntervalMs`, or when someone
/// calls `flush`. An intent stays visible through `pending(imageKey:)` (a search of the queue and of the
/// batch being written, newest first: no per-intent map to keep on the event loop) until its batch has
/// committed, so
/// `intent(imageKey:)` (queue first, then store) finds every intent whose URL was handed out, even one
/// confirmed a millisecond later. A batch the store refuses as bad is split so that one bad intent is
/// dropped alone. A database outage (`.unavailable`) never drops a batch: it is retried with exponential
/// back-off (20 ms doubling to `maxRetryDelayMs`) until the store is back, while later intents queue up
/// to `maxPending`; beyond that `enqueue` refuses (returns false) so the caller can refuse to issue a URL
/// whose intent could not be kept. Only a shutdown during an outage gives up, after
/// `shutdownRetryMs`. Every drop and the start of an outage are reported to `onError`.
public final class IntentWriter: Sendable {
    /// The queue shared by callers and the writer thread.
    struct State {
        /// Intents waiting to be written, oldest first. Sequence numbers are implicit: the last one queued
        /// has `nextSequence - 1`. The batch is handed to the store as this very array, without copies.
        var queue: [UploadIntent] = []
        /// When each queued intent was enqueued (parallel to `queue`), for the flush deadline.
        var enqueuedAtNanos: [UInt64] = []
        /// The batch the writer is writing, visible until it has committed.
        var inFlight: [UploadIntent] = []
        /// How many intents are queued or being written.
        var unwritten = 0
        /// The sequence number the next intent gets.
        var nextSequence: UInt64 = 1
        /// Every intent with a sequence number up to this one has been written or dropped.
        var doneSequence: UInt64 = 0
        /// Callers blocked in `flush`: the writer writes at once instead of waiting for a full batch.
        var flushWaiters = 0
        /// Set by `shutdown`: no new intents; the writer drains the queue and exits.
        var stopping = false
        /// Set by the writer thread as it exits.
        var exited = false
        /// Intents refused because `maxPending` were already waiting.
        var dropped = 0
    }

    /// The store intents are written to.
    public let store: any RecordStore
    /// The queue and the condition the writer and flushers wait on.
    private let monitor: Monitor<State>
    /// The largest batch.
    private let batchSize: Int
    /// Called (from the writer thread, or from `enqueue` after shutdown or when the queue is full) when
    /// intents are dropped.
    private let onError: @Sendable (RecordsError) -> Void
    /// The most intents queued or being written at once; beyond it `enqueue` drops (the database is down
    /// or far behind, and memory must stay bounded).
    public let maxPending: Int
    /// The longest wait between two attempts at a batch during an outage, in milliseconds.
    public let maxRetryDelayMs: Int
    /// How long a shutdown keeps retrying a batch during an outage before it drops it, in milliseconds.
    public let shutdownRetryMs: Int

    /// Starts a writer thread for `store`: batches of up to `batchSize`, written at the latest
    /// `flushIntervalMs` after the oldest queued intent arrived, at most `maxPending` waiting.
    public init(
        store: any RecordStore, batchSize: Int, flushIntervalMs: Int, maxPending: Int = 100_000,
        maxRetryDelayMs: Int = 2_000, shutdownRetryMs: Int = 5_000,
        onError: @escaping @Sendable (RecordsError) -> Void
    ) {
        precondition(batchSize >= 1, "batchSize must be at least 1")
        precondition(flushIntervalMs >= 0, "flushIntervalMs must not be negative")
        precondition(maxPending >= batchSize, "maxPending must be at least batchSize")
        precondition(maxRetryDelayMs >= 1 && shutdownRetryMs >= 0, "retry times must be positive")
        self.store = store
        self.maxPending = maxPending
        self.maxRetryDelayMs = maxRetryDelayMs
        self.shutdownRetryMs = shutdownRetryMs
        self.batchSize = batchSize
        self.onError = onError
        let monitor = Monitor(State())
        self.monitor = monitor
        let interval = UInt64(flushIntervalMs) * 1_000_000
        let retry = Retry(maxDelayMs: maxRetryDelayMs, shutdownMs: shutdownRetryMs)
        PThread.detach(name: "presignd-intent-writer") { [store, monitor, batchSize, onError] in
            Self.run(
                store: store, monitor: monitor, batchSize: batchSize, intervalNanos: interval, retry: retry,
                onError: onError)
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

    /// Queues `intent` for writing and returns at once (never blocks on the database): true when it is
    /// queued, false when it was dropped (the queue is full during an outage, or the writer is shut down)
    /// and the URL it stands for must not be handed out.
    @discardableResult
    public func enqueue(_ intent: UploadIntent) -> Bool {
        let now = MonotonicClock.nanoseconds()
        let (outcome, wake) = monitor.withLock { state -> (EnqueueOutcome, Bool) in
            guard !state.stopping else { return (.shutDown, false) }
            guard state.unwritten < maxPending else {
                state.dropped += 1
                // Report the first drop and every 10,000th after it, not one line per request.
                return (state.dropped % 10_000 == 1 ? .full(state.dropped) : .fullQuiet, false)
            }
            state.nextSequence += 1
            if state.queue.capacity == 0 {
                state.queue.reserveCapacity(batchSize)
                state.enqueuedAtNanos.reserveCapacity(batchSize)
            }
            state.queue.append(intent)
            state.enqueuedAtNanos.append(now)
            state.unwritten += 1
            // The writer sleeps until the queue is non-empty, then until its deadline or a full batch.
            return (.queued, state.queue.count == 1 || state.queue.count >= batchSize)
        }
        if wake { monitor.broadcast() }
        switch outcome {
        case .queued: return true
        case .fullQuiet: return false
        case .shutDown:
            onError(.unavailable("the intent writer is shut down; intent \(intent.imageKey) dropped"))
            return false
        case .full(let count):
            onError(.unavailable("\(maxPending) intents are waiting for the database; \(count) dropped so far"))
            return false
        }
    }

    /// True while the queue is full: `enqueue` refuses until the database takes the backlog.
    public var isFull: Bool {
        monitor.withLock { state in state.unwritten >= maxPending }
    }

    /// What `enqueue` did with an intent.
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
    public var droppedCount: Int {
        monitor.withLock { state in state.dropped }
    }

    /// The newest intent for `imageKey` that is enqueued but not yet committed, or nil.
    public func pending(imageKey: String) -> UploadIntent? {
        monitor.withLock { state in
            // Byte comparison, as the stores compare keys (Swift's == also equates NFC and NFD).
            state.queue.last { $0.imageKey.hasSameBytes(as: imageKey) }
                ?? state.inFlight.last { $0.imageKey.hasSameBytes(as: imageKey) }
        }
    }

    /// The intent for `imageKey` as confirmation must see it: the queue first (it holds the newest), then
    /// the store. An intent leaves the queue only after its batch has committed, so nothing is missed in
    /// between. Blocks on the store: call from a worker thread.
    public func intent(imageKey: String) throws(RecordsError) -> UploadIntent? {
        if let queued = pending(imageKey: imageKey) { return queued }
        return try store.intent(imageKey: imageKey)
    }

    /// How many intents are queued or being written.
    public var pendingCount: Int {
        monitor.withLock { state in state.unwritten }
    }

    /// Blocks until every intent enqueued before this call has been written (or dropped and reported).
    public func flush() {
        monitor.withLock { state, waiter in
            let target = state.nextSequence - 1
            guard state.doneSequence < target, !state.exited else { return }
            state.flushWaiters += 1
            monitor.broadcast()
            while state.doneSequence < target && !state.exited { waiter.wait() }
            state.flushWaiters -= 1
        }
    }

    /// Like `flush`, but waits at most `timeoutMs`: true when every intent enqueued before this call has
    /// been written (or dropped and reported), false when the time ran out first (a database outage).
    public func flush(timeoutMs: Int) -> Bool {
        let deadline = MonotonicClock.nanoseconds() + UInt64(max(0, timeoutMs)) * 1_000_000
        return monitor.withLock { state, waiter in
            let target = state.nextSequence - 1
            guard state.doneSequence < target, !state.exited else { return state.doneSequence >= target }
            state.flushWaiters += 1
            monitor.broadcast()
            while state.doneSequence < target && !state.exited && MonotonicClock.nanoseconds() < deadline {
                _ = waiter.wait(untilNanos: deadline)
            }
            state.flushWaiters -= 1
            return state.doneSequence >= target
        }
    }

    /// Writes everything queued, then stops the writer thread; later intents are dropped and reported.
    /// Safe to call more than once.
    public func shutdown() {
        monitor.withLock { state in state.stopping = true }
        monitor.broadcast()
        monitor.withLock { state, waiter in
            while !state.exited { waiter.wait() }
        }
    }

    /// The writer thread: wait for a batch to be due, write it, publish its completion; until stopped and
    /// drained.
    private static func run(
        store: any RecordStore, monitor: Monitor<State>, batchSize: Int, intervalNanos: UInt64, retry: Retry,
        onError: @Sendable (RecordsError) -> Void
    ) {
        while true {
            let (batch, last): ([UploadIntent], UInt64) = monitor.withLock { state, waiter in
                while true {
                    if state.queue.isEmpty {
                        if state.stopping { return ([], 0) }
                        waiter.wait()
                        continue
                    }
                    if state.queue.count >= batchSize || state.flushWaiters > 0 || state.stopping { break }
                    let deadline = state.enqueuedAtNanos[0] + intervalNanos
                    if MonotonicClock.nanoseconds() >= deadline { break }
                    waiter.wait(untilNanos: deadline)
                }
                let taken = min(batchSize, state.queue.count)
                let last = state.nextSequence - 1 - UInt64(state.queue.count - taken)
                if taken == state.queue.count {
                    // The common case: take the whole queue without shifting it.
                    state.inFlight = state.queue
                    state.queue = []
                    state.enqueuedAtNanos.removeAll(keepingCapacity: true)
                } else {
                    state.inFlight = Array(state.queue.prefix(taken))
                    state.queue.removeFirst(taken)
                    state.enqueuedAtNanos.removeFirst(taken)
                }
                return (state.inFlight, last)
            }
            guard !batch.isEmpty else { break }
            write(batch, to: store, monitor: monitor, retry: retry, onError: onError)
            monitor.withLock { state in
                state.doneSequence = last
                state.unwritten -= batch.count
                state.inFlight = []
            }
            monitor.broadcast()
        }
        monitor.withLock { state in state.exited = true }
        monitor.broadcast()
    }

    /// Writes one batch: a database outage is retried with back-off until the store answers (or, once a
    /// shutdown began, for `retry.shutdownMs`); a batch refused for another reason is split so that a bad
    /// intent is dropped alone.
    private static func write(
        _ intents: [UploadIntent], to store: any RecordStore, monitor: Monitor<State>, retry: Retry,
        onError: @Sendable (RecordsError) -> Void
    ) {
        var delayMs = 20
        var reported = false
        var givingUpAtNanos: UInt64?
        while true {
            let failure: RecordsError
            do {
                try store.putIntents(intents)
                return
            } catch {
                failure = error
            }
            guard case .unavailable = failure else {
                if intents.count > 1 {
                    for intent in intents {
                        write([intent], to: store, monitor: monitor, retry: retry, onError: onError)
                    }
                } else {
                    onError(failure)
                }
                return
            }
            if !reported {
                // Once per outage of this batch: the line says the database is down, not each retry.
                onError(failure)
                reported = true
            }
            // Wait before the next attempt; a shutdown wakes the wait and starts the give-up clock.
            let stopping = monitor.withLock { state, waiter -> Bool in
                _ = waiter.wait(millis: delayMs)
                return state.stopping
            }
            if stopping {
                let now = MonotonicClock.nanoseconds()
                let limit = givingUpAtNanos ?? now + UInt64(retry.shutdownMs) * 1_000_000
                givingUpAtNanos = limit
                if now >= limit {
                    onError(.unavailable("shutting down during a database outage: \(intents.count) intents dropped"))
                    return
                }
            }
            delayMs = min(delayMs * 2, retry.maxDelayMs)
        }
    }
}
