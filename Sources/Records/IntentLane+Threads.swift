import System

/// An intent lane's two threads: the writer, which commits batches back to back, and the deadline
/// thread, which ends the waits that outlast `maxWaitMs`.
extension IntentLane {
    /// The writer thread: take everything queued (up to `batchSize`) as soon as the previous commit
    /// ended, commit it, then tell its callers; until stopped and drained.
    /// `queued` is kept at the queue's length as batches are taken (`IntentWriter` reads it to pick a lane).
    static func run(
        store: any RecordStore, monitor: Monitor<State>, deadlineBell: MonitorCondition, batchSize: Int, retry: Retry,
        queued: Counter, unwrittenTotal: Counter, onError: @Sendable (RecordsError) -> Void
    ) {
        while true {
            let taken = monitor.withLock { state, waiter -> Bool in
                // No timer: a commit is due as soon as anything is queued.
                while state.queue.isEmpty {
                    if state.stopping { return false }
                    waiter.wait()
                }
                let count = min(batchSize, state.queue.count)
                if count == state.queue.count {
                    // The common case: hand the whole queue over without copying it, and queue the next
                    // batch in the buffers the last one was written from (emptied with their room kept,
                    // below): a new queue of `batchSize` intents was a malloc of tens of KiB per commit,
                    // large enough to set off glibc's `malloc_consolidate` on the event loop.
                    swap(&state.inFlight, &state.queue)
                    swap(&state.inFlightWaiters, &state.waiters)
                    swap(&state.inFlightEnqueuedAtNanos, &state.enqueuedAtNanos)
                    swap(&state.inFlightReservations, &state.reservations)
                } else {
                    state.inFlight = Array(state.queue.prefix(count))
                    state.inFlightWaiters = Array(state.waiters.prefix(count))
                    state.inFlightEnqueuedAtNanos = Array(state.enqueuedAtNanos.prefix(count))
                    state.inFlightReservations = Array(state.reservations.prefix(count))
                    state.queue.removeFirst(count)
                    state.waiters.removeFirst(count)
                    state.enqueuedAtNanos.removeFirst(count)
                    if !state.reservations.isEmpty { state.reservations.removeFirst(count) }
                }
                queued.set(state.queue.count)
                return true
            }
            guard taken else { break }
            let failures = writeBatch(store: store, monitor: monitor, retry: retry, onError: onError)
            let calls = monitor.withLock { state -> [(Completion, IntentOutcome)] in
                var calls: [(Completion, IntentOutcome)] = []
                for (position, waiter) in state.inFlightWaiters.enumerated() {
                    guard case .waiting(let completion) = waiter else { continue }
                    calls.append((completion, failures[position] ?? .stored))
                }
                let exceeded =
                    failures.isEmpty
                    ? 0 : calls.count(where: { if case .quotaExceeded = $0.1 { true } else { false } })
                let refused = failures.isEmpty ? 0 : calls.count(where: { !$0.1.isStored }) - exceeded
                state.refused += refused
                state.quotaExceeded += exceeded
                state.stored += calls.count - refused - exceeded
                state.waiting -= calls.count
                state.doneSequence += UInt64(state.inFlight.count)
                state.unwritten -= state.inFlight.count
                unwrittenTotal.add(-state.inFlight.count)
                // Their room is kept for the next batch (above), up to twice a batch: a queue that grew in a
                // burst gives its memory back.
                let keep = 2 * batchSize
                Self.empty(&state.inFlight, keepingUpTo: keep)
                Self.empty(&state.inFlightWaiters, keepingUpTo: keep)
                Self.empty(&state.inFlightEnqueuedAtNanos, keepingUpTo: keep)
                Self.empty(&state.inFlightReservations, keepingUpTo: keep)
                return calls
            }
            monitor.broadcast()
            for (completion, outcome) in calls { completion(outcome) }
        }
        monitor.withLock { state in state.exited = true }
        monitor.broadcast()
        deadlineBell.broadcast()
    }

    /// Empties `array`, keeping its room unless it holds more than `limit` elements.
    static func empty<T>(_ array: inout [T], keepingUpTo limit: Int) {
        if array.capacity > limit { array = [] } else { array.removeAll(keepingCapacity: true) }
    }

    /// The intents of the batch in flight still to be written, with their positions in it when some
    /// were left out (callers that timed out: no URL names those intents), and their quota reservations
    /// (empty: none asks for one).
    private static func wanted(_ monitor: Monitor<State>) -> ([UploadIntent], [Int]?, [QuotaRequest?]) {
        monitor.withLock { state in
            let abandoned = state.inFlightWaiters.contains { if case .timedOut = $0 { true } else { false } }
            guard abandoned else { return (state.inFlight, nil, state.inFlightReservations) }
            var intents: [UploadIntent] = []
            var positions: [Int] = []
            var reservations: [QuotaRequest?] = []
            for (position, waiter) in state.inFlightWaiters.enumerated() {
                if case .timedOut = waiter { continue }
                intents.append(state.inFlight[position])
                positions.append(position)
                if !state.inFlightReservations.isEmpty { reservations.append(state.inFlightReservations[position]) }
            }
            return (intents, positions, reservations)
        }
    }

    /// Stores `intents` in one transaction, with their quota reservations when some ask for one and the
    /// store keeps quotas; the outcomes of the intents not stored, by index (empty: all stored).
    private static func put(_ intents: [UploadIntent], reserving: [QuotaRequest?], store: any RecordStore)
        throws(RecordsError) -> [Int: IntentOutcome]
    {
        guard let quotas = store as? any QuotaStore, reserving.contains(where: { $0 != nil }) else {
            try store.putIntents(intents)
            return [:]
        }
        var exceeded: [Int: IntentOutcome] = [:]
        for (index, outcome) in try quotas.putIntents(intents, reserving: reserving).enumerated() {
            if case .exceeded(let quota, let limit, let used, let resetsAtMs) = outcome {
                exceeded[index] = .quotaExceeded(quota: quota, limit: limit, used: used, resetsAtMs: resetsAtMs)
            }
        }
        return exceeded
    }

    /// Writes the batch in flight: a database outage is retried with back-off until the store answers
    /// (or, once a shutdown began, for `retry.shutdownMs`), leaving out intents whose callers timed
    /// out; a batch refused for another reason is split so that a bad intent fails alone. Returns the
    /// outcomes of the intents not stored (refused, or over a quota) by position in the batch (empty:
    /// all stored).
    private static func writeBatch(
        store: any RecordStore, monitor: Monitor<State>, retry: Retry, onError: @Sendable (RecordsError) -> Void
    ) -> [Int: IntentOutcome] {
        var delayMs = 20
        var reported = false
        var givingUpAtNanos: UInt64?
        while true {
            let (intents, positions, reservations) = wanted(monitor)
            if intents.isEmpty { return [:] }
            let failure: RecordsError
            do {
                let exceeded = try put(intents, reserving: reservations, store: store)
                guard let positions else { return exceeded }
                return Dictionary(uniqueKeysWithValues: exceeded.map { (positions[$0.key], $0.value) })
            } catch {
                failure = error
            }
            guard case .unavailable = failure else {
                var failures: [Int: IntentOutcome] = [:]
                if intents.count == 1 {
                    onError(failure)
                    failures[positions?[0] ?? 0] = .refused(failure)
                    return failures
                }
                for (index, intent) in intents.enumerated() {
                    if let outcome = writeAlone(
                        intent, reserving: reservations.isEmpty ? nil : reservations[index], store: store,
                        monitor: monitor, retry: retry, onError: onError)
                    {
                        failures[positions?[index] ?? index] = outcome
                    }
                }
                return failures
            }
            if !reported {
                // Once per outage of this batch: the line says the database is down, not each retry.
                onError(failure)
                reported = true
            }
            guard waitBeforeRetry(&delayMs, &givingUpAtNanos, monitor: monitor, retry: retry) else {
                onError(.unavailable("shutting down during a database outage: \(intents.count) intents dropped"))
                var failures: [Int: IntentOutcome] = [:]
                for index in intents.indices { failures[positions?[index] ?? index] = .refused(failure) }
                return failures
            }
        }
    }

    /// Writes one intent of a split batch (with its reservation), through an outage as a batch is; its
    /// outcome when it is not stored (refused, or over a quota), or nil when it is.
    private static func writeAlone(
        _ intent: UploadIntent, reserving: QuotaRequest?, store: any RecordStore, monitor: Monitor<State>,
        retry: Retry, onError: @Sendable (RecordsError) -> Void
    ) -> IntentOutcome? {
        var delayMs = 20
        var reported = false
        var givingUpAtNanos: UInt64?
        while true {
            let failure: RecordsError
            do {
                return try put([intent], reserving: reserving.map { [$0] } ?? [], store: store)[0]
            } catch {
                failure = error
            }
            guard case .unavailable = failure else {
                onError(failure)
                return .refused(failure)
            }
            if !reported {
                onError(failure)
                reported = true
            }
            guard waitBeforeRetry(&delayMs, &givingUpAtNanos, monitor: monitor, retry: retry) else {
                onError(.unavailable("shutting down during a database outage: 1 intent dropped"))
                return .refused(failure)
            }
        }
    }

    /// Waits before the next attempt (a shutdown wakes the wait and starts the give-up clock); false
    /// when a shutdown's `retry.shutdownMs` has run out.
    private static func waitBeforeRetry(
        _ delayMs: inout Int, _ givingUpAtNanos: inout UInt64?, monitor: Monitor<State>, retry: Retry
    ) -> Bool {
        let wait = delayMs
        let stopping = monitor.withLock { state, waiter -> Bool in
            _ = waiter.wait(millis: wait)
            return state.stopping
        }
        if stopping {
            let now = MonotonicClock.nanoseconds()
            let limit = givingUpAtNanos ?? now + UInt64(retry.shutdownMs) * 1_000_000
            givingUpAtNanos = limit
            if now >= limit { return false }
        }
        delayMs = min(delayMs * 2, retry.maxDelayMs)
        return true
    }

    /// The deadline thread: tells each caller whose intent is not stored `waitNanos` after it was
    /// submitted `.timedOut` (the writer may be held in a stalled store call meanwhile); until the
    /// writer has exited, when every caller has its outcome.
    static func expire(monitor: Monitor<State>, bell: MonitorCondition, waitNanos: UInt64) {
        while true {
            let (expired, done) = monitor.withLock(waitingOn: bell) { state, waiter -> ([Completion], Bool) in
                while true {
                    if state.exited { return ([], true) }
                    var expired: [Completion] = []
                    let next = expireDue(&state.value, waitNanos: waitNanos, into: &expired)
                    if !expired.isEmpty {
                        state.timedOut += expired.count
                        state.waiting -= expired.count
                        return (expired, false)
                    }
                    if state.waiting > 0, let next {
                        _ = waiter.wait(untilNanos: next)
                    } else {
                        // Nothing to time: the next first waiter rings (`submit`), as does the writer's exit.
                        state.deadlineIdle = true
                        waiter.wait()
                        state.deadlineIdle = false
                    }
                }
            }
            for completion in expired { completion(IntentOutcome.timedOut) }
            if done { break }
        }
        monitor.withLock { state in state.deadlineExited = true }
        monitor.broadcast()
    }

    /// Marks the waits due by now `.timedOut` (oldest first: deadlines grow with the sequence), adding
    /// their completions to `expired`; the deadline of the next wait, if any.
    private static func expireDue(_ state: inout State, waitNanos: UInt64, into expired: inout [Completion])
        -> UInt64?
    {
        let now = MonotonicClock.nanoseconds()
        let inFlightFirst = state.doneSequence + 1
        let queueFirst = state.nextSequence - UInt64(state.queue.count)
        var sequence = max(state.expiredThrough, state.doneSequence) + 1
        defer { state.expiredThrough = sequence - 1 }
        while sequence < state.nextSequence {
            if sequence < queueFirst {
                let i = Int(sequence - inFlightFirst)
                let deadline = state.inFlightEnqueuedAtNanos[i] + waitNanos
                if deadline > now { return deadline }
                if case .waiting(let completion) = state.inFlightWaiters[i] {
                    expired.append(completion)
                    state.inFlightWaiters[i] = .timedOut
                }
            } else {
                let i = Int(sequence - queueFirst)
                let deadline = state.enqueuedAtNanos[i] + waitNanos
                if deadline > now { return deadline }
                if case .waiting(let completion) = state.waiters[i] {
                    expired.append(completion)
                    state.waiters[i] = .timedOut
                }
            }
            sequence += 1
        }
        return nil
    }
}
