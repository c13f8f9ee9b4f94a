import Records
import Synchronization
import Uploads

/// An intent sink that keeps what it is given and tells each caller at once `.stored`, refuses
/// everything (a full intent queue), or holds every caller until `release` (a commit still running).
public final class RecordingIntentSink: IntentSink {
    /// What the sink tells a caller.
    public enum Mode: Sendable {
        /// `.stored` at once.
        case storing
        /// `.refused(.unavailable)` at once (a full queue).
        case refusing
        /// Nothing until `release(with:)`.
        case holding
    }

    private let kept = Mutex<[UploadIntent]>([])
    private let held = Mutex<[IntentWriter.Completion]>([])
    private let asked = Mutex<[QuotaRequest?]>([])
    private let mode: Mode

    /// A sink in `mode`; `refusing` true is `.refusing`.
    public init(refusing: Bool = false) { self.mode = refusing ? .refusing : .storing }

    /// A sink in `mode`.
    public init(mode: Mode) { self.mode = mode }

    /// The intents submitted so far (refused ones too).
    public var intents: [UploadIntent] { kept.withLock { $0 } }

    /// How many callers wait for `release`.
    public var heldCount: Int { held.withLock { $0.count } }

    /// The reservations asked for so far, in order (nil: none asked).
    public var reservations: [QuotaRequest?] { asked.withLock { $0 } }

    /// Keeps `intent` (and its reservation) and tells the caller as the mode says.
    public func submit(
        _ intent: UploadIntent, reserving: QuotaRequest?, completion: @escaping IntentWriter.Completion
    ) {
        kept.withLock { $0.append(intent) }
        asked.withLock { $0.append(reserving) }
        switch mode {
        case .storing: completion(.stored)
        case .refusing: completion(.refused(.unavailable("the test's intent queue is full")))
        case .holding: held.withLock { $0.append(completion) }
        }
    }

    /// Tells every held caller `outcome`.
    public func release(with outcome: IntentOutcome) {
        let waiting = held.withLock { held in
            defer { held = [] }
            return held
        }
        for completion in waiting { completion(outcome) }
    }
}
