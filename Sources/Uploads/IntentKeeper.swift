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

    /// A keeper storing through `writer` and reading `writer`'s store; issued intents go to `sink` (the
    /// writer itself unless a test says otherwise).
    public init(writer: IntentWriter, sink: (any IntentSink)? = nil) {
        self.store = writer.store
        self.sink = sink ?? writer
    }

    /// Submits the intent of a URL about to be answered, and calls `then` once: nil when it is stored
    /// (the URL may be answered), else why not (`.intentsBacklogged`, `.intentNotStored`, `.store`).
    /// Never blocks; `then` must not block (it runs on the writer's or the deadline thread, or on this
    /// one when the queue refuses at once).
    public func handOff(_ intent: UploadIntent, then: @escaping @Sendable (UploadError?) -> Void) {
        sink.submit(intent) { outcome in then(UploadError(notKept: outcome)) }
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
    /// Why an intent handed to the writer cannot back an answer, or nil when it is stored: the one
    /// mapping of an intent's outcome to the lifecycle's errors.
    init?(notKept outcome: IntentOutcome) {
        switch outcome {
        case .stored: return nil
        case .refused(.unavailable): self = .intentsBacklogged
        case .refused(let error): self = .store(error)
        case .timedOut: self = .intentNotStored
        }
    }
}
