import Records
import StoreEvents
import Synchronization
import System

/// Records uploads from the store's own events: takes the inbox's due entries (written by the events
/// endpoint before its 2xx) under a lease, reads each delivery's events, finds each event's intent by
/// the object key it names, and records the upload as `POST /images` would (`Confirmer.confirmStored`:
/// the intent's owner, the size, type and content checks, promotion) through the same claims, so a racing
/// confirmation still yields one record and a delivery RGW or SNS makes again collapses into it.
///
/// An entry whose events are all settled is `done`; one whose events cannot be used (an unknown key, a
/// malformed record, an upload refused by the checks) is `rejected` with the first reason, each event's
/// reason counted (`rejectedByReason`) and logged; one that failed for now (storage or the database, or a
/// claim another claimant holds) is due again after a back-off (1 s doubling to 5 min; given up after
/// `maxAttempts`). An entry is taken only `recordDelayMs` after it arrived, so a client's own
/// confirmation, which carries its metadata, usually comes first. Runs on its own thread every
/// `intervalMs`, and at once when `wake()` says an event arrived.
public final class EventProcessor: @unchecked Sendable {
    private let store: any LifecycleStore
    private let confirmer: Confirmer
    private let parser: S3EventParser
    private let intervalMs: Int
    private let recordDelayMs: Int64
    private let leaseMs: Int64
    private let batchSize: Int
    private let retentionMs: Int64
    /// The attempts after which an entry that keeps failing is rejected (`gave-up`).
    public let maxAttempts: Int
    private let env: UploadEnvironment
    private let events: LifecycleLog
    private let lock = Monitor()
    private var stopping = false
    private var woken = false
    private var thread: PThread?

    /// Events that made a record.
    public let recordedCount = Atomic<Int>(0)
    /// Events whose upload was recorded already (by its confirmation, or an earlier delivery).
    public let alreadyRecorded = Atomic<Int>(0)
    /// Entries due again after a failure.
    public let retries = Atomic<Int>(0)
    /// Unusable events and deliveries, by reason.
    private let rejections = Mutex<[String: Int]>([:])

    /// A processor of `store`'s inbox, recording through `confirmer`; `bucket` is the only bucket whose
    /// events count (others are `wrong-bucket`). `leaseMs` is how long taken entries stay its own: short,
    /// so entries a killed process had taken are due again soon after its restart (an entry settled past
    /// the lease may be settled twice, which the claims make one record; its late `finishEvent` is fenced).
    public init(
        store: any LifecycleStore, confirmer: Confirmer, bucket: String, intervalMs: Int, recordDelayMs: Int,
        leaseMs: Int64 = 15_000, batchSize: Int = 16, retentionMs: Int64 = 86_400_000, maxAttempts: Int = 100,
        env: UploadEnvironment, events: @escaping LifecycleLog
    ) {
        self.store = store
        self.confirmer = confirmer
        self.parser = S3EventParser(bucket: bucket)
        self.intervalMs = max(1, intervalMs)
        self.recordDelayMs = Int64(max(0, recordDelayMs))
        self.leaseMs = leaseMs
        self.batchSize = max(1, batchSize)
        self.retentionMs = retentionMs
        self.maxAttempts = maxAttempts
        self.env = env
        self.events = events
    }

    /// Unusable events and deliveries so far, by reason (`unknown-key`, `malformed-record`, …).
    public var rejectedByReason: [String: Int] { rejections.withLock { $0 } }

    /// Starts the thread.
    public func start() {
        events(.eventProcessorStarted(intervalMs: intervalMs, recordDelayMs: Int(recordDelayMs)))
        thread = PThread(name: "presignd-events") { [self] in
            var rounds = 0
            while true {
                let stop = lock.withLock { () -> Bool in
                    if !stopping && !woken { lock.wait(millis: intervalMs) }
                    woken = false
                    return stopping
                }
                if stop { return }
                // Everything due now, batch after batch.
                while pass() == batchSize && !lock.withLock({ stopping }) {}
                rounds += 1
                if rounds % 600 == 0 {
                    _ = try? store.pruneEvents(finishedBeforeMs: env.nowMillis() - retentionMs, limit: 1000)
                }
            }
        }
    }

    /// Says an event arrived: the thread takes it without waiting for its interval (when its delay allows).
    public func wake() {
        lock.withLock { woken = true }
        lock.broadcast()
    }

    /// Stops the thread (an entry in progress finishes first) and waits for it.
    public func stop() {
        lock.withLock { stopping = true }
        lock.broadcast()
        guard let running = thread else { return }
        running.join()
        thread = nil
        events(.eventProcessorStopped)
    }

    /// One pass: takes up to `batchSize` due entries and settles each; returns how many it took.
    @discardableResult
    public func pass(fence: PassFence = .always) -> Int {
        let token = env.newUUID()
        let now = env.nowMillis()
        // Entries are due from their arrival; asking as of `now - recordDelayMs` takes only those that
        // arrived at least the delay ago, with the lease counted from then too (so it still runs `leaseMs`).
        let taken: [InboxEvent]
        do throws(RecordsError) {
            taken = try store.takeEvents(
                nowMs: now - recordDelayMs, limit: batchSize, leaseMs: leaseMs + recordDelayMs, token: token)
        } catch {
            events(.eventRetried(source: "inbox", attempts: 0, error: "\(error)"))
            return 0
        }
        for entry in taken {
            guard fence.holds else { break }
            let outcome = settle(entry)
            _ = try? store.finishEvent(id: entry.id, token: token, outcome: outcome, nowMs: env.nowMillis())
        }
        return taken.count
    }

    /// What one delivery's events came to.
    struct Tally {
        /// Events settled (recorded now or before).
        var settled = 0
        /// Unusable events' reasons, in order.
        var reasons: [(key: String?, reason: String)] = []
        /// The first failure that is worth another attempt.
        var retry: String?
    }

    /// Settles one inbox entry: its outcome for `finishEvent`.
    func settle(_ entry: InboxEvent) -> InboxOutcome {
        let batch: EventBatch
        do throws(StoreEventsError) {
            batch = try events(of: entry)
        } catch {
            return reject(entry, [(nil, "malformed-delivery")])
        }
        var tally = Tally()
        for unusable in batch.unusable { tally.reasons.append((nil, unusable.reason)) }
        for event in batch.events { record(event, source: entry.source, attempts: entry.attempts, into: &tally) }
        if let failure = tally.retry {
            guard entry.attempts < maxAttempts else { return reject(entry, [(nil, "gave-up")]) }
            retries.add(1, ordering: .relaxed)
            events(.eventRetried(source: entry.source, attempts: entry.attempts, error: failure))
            let backoff = min(Int64(1000) << Int64(min(entry.attempts - 1, 20)), 300_000)
            return .retry(dueAtMs: env.nowMillis() + backoff, reason: String(failure.prefix(200)))
        }
        if tally.settled == 0, !tally.reasons.isEmpty { return reject(entry, tally.reasons) }
        count(entry, tally.reasons)
        return .done
    }

    /// Attempts an entry naming a key without an intent gets before the key counts as unknown: the event
    /// can overtake the intent's commit (an issue route that answered before it), so a few seconds of
    /// retries (1 s, then 2 s) let the intent arrive.
    static let unknownKeyAttempts = 3

    /// Records the upload `event` names, or notes why not; `attempts` is the entry's, this one included.
    func record(_ event: StoreEvent, source: String, attempts: Int, into tally: inout Tally) {
        do throws(UploadError) {
            let intent: UploadIntent?
            let recorded: ImageRecord?
            do throws(RecordsError) {
                intent = try store.intent(objectKey: event.key)
                // A confirmation that won the race consumed the intent: the upload is recorded already.
                recorded = intent == nil ? try store.record(imageKey: event.key) : nil
            } catch {
                throw .store(error)
            }
            if recorded != nil {
                tally.settled += 1
                alreadyRecorded.add(1, ordering: .relaxed)
                return
            }
            guard let intent else {
                if attempts < Self.unknownKeyAttempts {
                    tally.retry = tally.retry ?? "no intent names \(event.key) yet"
                } else {
                    tally.reasons.append((event.key, "unknown-key"))
                }
                return
            }
            let confirmed = try confirmer.confirmStored(intent, by: .event)
            tally.settled += 1
            if confirmed.created {
                recordedCount.add(1, ordering: .relaxed)
                events(.eventRecorded(source: source, key: event.key, created: true))
            } else {
                alreadyRecorded.add(1, ordering: .relaxed)
            }
        } catch {
            switch error {
            case .imageTooLarge, .contentTypeNotAllowed, .contentMismatch, .checksumMismatch, .sizeMismatch:
                tally.reasons.append((event.key, "refused"))
            case .intentExpired:
                tally.reasons.append((event.key, "intent-expired"))
            case .imageNotUploaded:
                tally.reasons.append((event.key, "object-gone"))
            case .store, .storage, .confirmationInProgress, .intentsBacklogged, .credentialsUnavailable:
                tally.retry = tally.retry ?? "\(error)"
            default:
                tally.reasons.append((event.key, "refused"))
            }
        }
    }

    /// The events of an entry's body, read as the door it came through wrote it.
    func events(of entry: InboxEvent) throws(StoreEventsError) -> EventBatch {
        guard entry.source == "sns" else { return try parser.parse(entry.body) }
        let message = try SNSMessage(json: try parser.json(entry.body))
        guard message.kind == .notification else { return EventBatch(events: [], unusable: []) }
        do throws(StoreEventsError) {
            return try parser.parse(Array(message.message.utf8))
        } catch {
            return EventBatch(events: [], unusable: [.init(index: 0, reason: "malformed-record")])
        }
    }

    /// A rejected entry: its reasons counted and logged; the first one is the entry's.
    func reject(_ entry: InboxEvent, _ reasons: [(key: String?, reason: String)]) -> InboxOutcome {
        count(entry, reasons)
        return .rejected(reason: reasons.first?.reason ?? "unusable")
    }

    /// Counts and logs unusable events of a finished entry.
    func count(_ entry: InboxEvent, _ reasons: [(key: String?, reason: String)]) {
        guard !reasons.isEmpty else { return }
        rejections.withLock { counts in
            for r in reasons { counts[r.reason, default: 0] += 1 }
        }
        for r in reasons { events(.eventRejected(source: entry.source, key: r.key, reason: r.reason)) }
    }
}
