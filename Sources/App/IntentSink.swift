import Records

/// Where issued URLs' upload intents go. The intent writer stores them in batches; tests may collect them.
public protocol IntentSink: Sendable {
    /// Queues `intent` without blocking.
    func enqueue(_ intent: UploadIntent)
}

extension IntentWriter: IntentSink {}
