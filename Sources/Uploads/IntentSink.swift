import Records

/// Where issued URLs' upload intents go. The intent writer stores them in batches; tests may collect them.
public protocol IntentSink: Sendable {
    /// Queues `intent` without blocking; false when it could not be kept (the URL must not be issued).
    @discardableResult
    func enqueue(_ intent: UploadIntent) -> Bool
}

extension IntentWriter: IntentSink {}
