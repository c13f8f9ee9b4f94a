import Records

/// Where issued URLs' upload intents go: the intent writer commits them in batches and says when each
/// is stored; tests may collect them, refuse them or hold them.
public protocol IntentSink: Sendable {
    /// Queues `intent` without blocking, with its daily quota reservation when `reserving` is given;
    /// `completion` is called exactly once with its outcome (`.stored` only once it is in the store,
    /// `.quotaExceeded` when the reservation would pass a quota), from any thread, and must not block.
    func submit(_ intent: UploadIntent, reserving: QuotaRequest?, completion: @escaping IntentWriter.Completion)
}

extension IntentWriter: IntentSink {}
