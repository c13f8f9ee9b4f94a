import Records
import Synchronization
import Uploads

/// An intent sink that keeps what it is given, or refuses everything (a full intent queue).
public final class RecordingIntentSink: IntentSink {
    private let kept = Mutex<[UploadIntent]>([])
    private let refusing: Bool

    /// A sink that keeps intents, or refuses them all when `refusing`.
    public init(refusing: Bool = false) { self.refusing = refusing }

    /// The intents queued so far.
    public var intents: [UploadIntent] { kept.withLock { $0 } }

    /// Keeps `intent`, unless refusing.
    public func enqueue(_ intent: UploadIntent) -> Bool {
        guard !refusing else { return false }
        kept.withLock { $0.append(intent) }
        return true
    }
}
