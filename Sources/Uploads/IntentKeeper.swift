import Records
import System

/// The intents of issued URLs: the one hand-off every issuing route passes its intent through, and the
/// lookup of an intent in the store.
///
/// This is the only part of the lifecycle that touches the intent writer, so the rule "a URL is
/// answered only once its intent is stored" lives here: `handOff` submits the intent and tells its
/// caller when it is committed, and issuing returns its URL as a `Pending` that is answered only from
/// that completion. An intent is therefore in the store before anything can depend on it, where every
/// instance finds it (`intent(imageKey:)` asks the store alone).
public final class IntentKeeper: Sendable {
    /// Where hand-offs go (the writer; a test's sink).
    private let sink: any IntentSink
    /// The store intents are read from.
    private let store: any RecordStore
    /// The daily quotas every intent is reserved against; nil: none.
    private let quota: DailyQuota?

    /// A keeper storing through `writer` and reading `writer`'s store; issued intents go to `sink` (the
    /// writer itself unless a test says otherwise), each reserved against `quota` when given.
    public init(writer: IntentWriter, sink: (any IntentSink)? = nil, quota: DailyQuota? = nil) {
        self.store = writer.store
        self.sink = sink ?? writer
        self.quota = quota
    }

    /// Submits the intent of a URL about to be answered, and calls `then` once: nil when it is stored
    /// (the URL may be answered), else why not (`.intentsBacklogged`, `.intentNotStored`, `.store`,
    /// `.quotaExceeded`). Never blocks; `then` must not block (it runs on the writer's or the deadline
    /// thread, or on this one when the queue refuses at once).
    public func handOff(_ intent: UploadIntent, then: @escaping @Sendable (UploadError?) -> Void) {
        let issuedAtMs = intent.createdAtMs
        sink.submit(intent, reserving: quota?.request(for: intent)) { outcome in
            then(UploadError(notKept: outcome, issuedAtMs: issuedAtMs))
        }
    }

    /// On a worker: submits `intent` and waits for its outcome (at most the writer's bound), for a path
    /// that must act on a refusal with a blocking call of its own (a multipart upload it then aborts).
    public func handOffAndWait(_ intent: UploadIntent) throws(UploadError) {
        let outcome = Monitor<UploadError??>(nil)
        handOff(intent) { error in
            outcome.withLock { $0 = .some(error) }
            outcome.broadcast()
        }
        let error = outcome.withLock { state, waiter -> UploadError? in
            while true {
                if case .some(let error) = state.value { return error }
                waiter.wait()
            }
        }
        if let error { throw error }
    }

    /// The intent issued for `imageKey`, from the store (an answered URL's intent is always there).
    public func intent(imageKey: String) throws(UploadError) -> UploadIntent? {
        try UploadError.storing { () throws(RecordsError) in try store.intent(imageKey: imageKey) }
    }
}

extension UploadError {
    /// Why an intent handed to the writer at `issuedAtMs` cannot back an answer, or nil when it is
    /// stored: the one mapping of an intent's outcome to the lifecycle's errors.
    init?(notKept outcome: IntentOutcome, issuedAtMs: Int64) {
        switch outcome {
        case .stored: return nil
        case .refused(.unavailable): self = .intentsBacklogged
        case .refused(let error): self = .store(error)
        case .timedOut: self = .intentNotStored
        case .quotaExceeded(let quota, let limit, let used, let resetsAtMs):
            self = .quotaExceeded(
                quota: quota.rawValue, limit: limit, used: used, resetsAtMs: resetsAtMs,
                retryAfterSeconds: Int(max(1, (resetsAtMs - issuedAtMs + 999) / 1000)))
        }
    }
}
