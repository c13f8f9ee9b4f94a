import Records
import Synchronization

/// The intents of issued URLs: the one hand-off every issuing route passes its intent through, the
/// lookup of an intent (the writer's queue, then the store), and the wait a confirmation makes for a
/// still-queued intent to be stored.
///
/// This is the only part of the lifecycle that touches the intent writer, so the rule "an intent is
/// stored before anything depends on it" lives here. Today `handOff` queues the intent and the URL is
/// answered at once; a later "store, then answer" changes `handOff` (and with it every issuing route)
/// in this one place, and `makeDurable` then has nothing left to wait for.
public final class IntentKeeper: Sendable {
    /// Where hand-offs go (the writer; a test's sink).
    private let sink: any IntentSink
    /// The writer: its queue and its store.
    private let writer: IntentWriter
    /// Confirmations that waited for their queued intent to be stored
    /// (`presignd_intents_flushed_before_confirm_total`).
    public let flushesBeforeCopy = Atomic<Int>(0)
    /// How long a confirmation waits for its queued intent to be stored before it is refused.
    public static let flushTimeoutMs = 5_000

    /// A keeper over `writer`; issued intents go to `sink` (the writer itself unless a test says otherwise).
    public init(writer: IntentWriter, sink: (any IntentSink)? = nil) {
        self.writer = writer
        self.sink = sink ?? writer
    }

    /// Hands over the intent of a URL about to be answered: `.intentsBacklogged` when it could not be
    /// kept (the URL must not be answered then: it could never be confirmed).
    public func handOff(_ intent: UploadIntent) throws(UploadError) {
        guard sink.enqueue(intent) else { throw .intentsBacklogged }
    }

    /// The intent issued for `imageKey`: the writer's queue first, then the store.
    public func intent(imageKey: String) throws(UploadError) -> UploadIntent? {
        try UploadError.storing { () throws(RecordsError) in try writer.intent(imageKey: imageKey) }
    }

    /// Waits until `intent` is stored when it is still only in the intent writer's queue (issued within
    /// the last `records.intentFlushMs`, or waiting out a database outage), so that its row, which names
    /// the permanent key, is stored before anything is copied there: a crash after the copy then leaves
    /// an object the janitor finds through that row once the intent expires. It also means a record
    /// never exists before its intent's row, so a later removal of the intent (a replaced slot's) finds
    /// it instead of the writer storing it afterwards, confirmable again. The writer writes at once
    /// for a waiting flush (no second copy of the intent is written: SQLite's intent log would keep
    /// both). An intent already stored (the usual case: the upload took longer than one flush) costs one
    /// search of the queue. Throws `.store(.unavailable)` when the intent is not stored within
    /// `flushTimeoutMs`, or its batch was dropped; nothing was copied then.
    public func makeDurable(_ intent: UploadIntent) throws(UploadError) {
        guard writer.pending(imageKey: intent.imageKey) != nil else { return }
        flushesBeforeCopy.wrappingAdd(1, ordering: .relaxed)
        guard writer.flush(timeoutMs: Self.flushTimeoutMs) else {
            throw .store(.unavailable("the intent of a confirmation was not stored in time; nothing was copied"))
        }
        let stored = try UploadError.storing { () throws(RecordsError) in
            try writer.store.intent(imageKey: intent.imageKey)
        }
        guard stored != nil else {
            throw .store(.unavailable("the intent of a confirmation was not stored; nothing was copied"))
        }
    }
}
