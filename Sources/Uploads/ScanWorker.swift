import Clamd
import ObjectStore
import Records
import Synchronization

/// The malware scan before publishing (docs/scanning.md): takes the `scanning` records that are due,
/// streams each object from storage to clamd (`INSTREAM`, bounded memory), and settles the record once,
/// through the pass's fence (a lease: one instance at a time scans, and a pass whose lease was taken
/// over writes nothing):
/// - clean: the object is promoted to the record's `publishKey` (copy while it is still the scanned
///   object, then the upload key deleted), then the record is `published` with `upload.completed` in the
///   same transaction;
/// - a signature found: the verdict is noted on the record, the object deleted, then the record is
///   `rejected` (`MALWARE_FOUND`, the signature's name) with `upload.rejected`;
/// - larger than `scan.maxBytes`: deleted, then `rejected` (`TOO_LARGE_TO_SCAN`);
/// - no verdict (clamd unreachable or slow, storage failing): the record stays `scanning`, due again after
///   a growing wait; it is never published unscanned.
///
/// Every step may be repeated after a crash: a record found `scanning` with its object gone was either
/// promoted (its `publishKey` holds the scanned copy: it is published) or noted as malware (it is
/// rejected with the noted signature).
public final class ScanWorker: Sendable {
    /// What clamd and the queue look like from here (`/readyz`, metrics).
    public enum Health: Sendable, Equatable {
        /// No scan or ping ran yet in this process (another instance may hold the scanner's lease).
        case unknown
        /// The last scan or ping had an answer.
        case up
        /// The last scan or ping had none: `error`, since `sinceMs`.
        case down(error: String, sinceMs: Int64)
    }

    /// The reason of a record whose scan found a signature.
    public static let malwareFound = "MALWARE_FOUND"
    /// The reason of a record larger than `scan.maxBytes`.
    public static let tooLargeToScan = "TOO_LARGE_TO_SCAN"
    /// The reason of a record whose object was replaced in storage after its confirmation.
    public static let objectChanged = "OBJECT_CHANGED"
    /// The reason of a record whose object is gone from storage before its scan.
    public static let objectMissing = "OBJECT_MISSING"
    /// The prefix of the note a found signature leaves before the object is deleted.
    static let foundNote = "FOUND "

    private let store: any LifecycleStore
    private let storage: any ObjectStorage
    private let clamd: ClamdClient
    private let settings: ScanSettings
    private let webhooks: WebhookEvents
    private let env: UploadEnvironment
    private let events: LifecycleLog
    private let state = Mutex<Health>(.unknown)
    /// When the scanner last pinged clamd while it had nothing to scan (monotonic ms of `env`).
    private let lastPingMs = Atomic<Int64>(0)

    /// Records published (`presignd_scans_total{outcome="clean"}`).
    public let clean = Atomic<Int>(0)
    /// Records rejected for a signature (`outcome="found"`).
    public let found = Atomic<Int>(0)
    /// Records rejected as too large to scan (`outcome="too_large"`).
    public let tooLarge = Atomic<Int>(0)
    /// Scans that gave no verdict (`outcome="error"`).
    public let failures = Atomic<Int>(0)
    /// Bytes streamed to clamd (`presignd_scan_bytes_total`).
    public let bytesScanned = Atomic<Int>(0)

    /// A worker scanning `store`'s queue with `clamd`, reading from `storage`.
    public init(
        store: any LifecycleStore, storage: any ObjectStorage, clamd: ClamdClient, settings: ScanSettings,
        webhooks: WebhookEvents, env: UploadEnvironment, events: @escaping LifecycleLog
    ) {
        self.store = store
        self.storage = storage
        self.clamd = clamd
        self.settings = settings
        self.webhooks = webhooks
        self.env = env
        self.events = events
    }

    /// What the last scan or ping said of clamd.
    public var health: Health { state.withLock { $0 } }

    /// One pass: scans due records until none is due, the fence is lost, or clamd gives no verdict (the
    /// rest wait for the next pass). With nothing due it pings clamd (at most every 5 s), so `health`
    /// says whether the scanner is down before a record waits on it. Returns how many records it settled.
    @discardableResult
    public func pass(_ fence: PassFence) -> Int {
        var settled = 0
        while fence.holds {
            let due: [ScanEntry]
            do throws(RecordsError) {
                due = try store.dueScans(nowMs: env.nowMillis(), limit: settings.batchSize)
            } catch {
                return settled
            }
            if due.isEmpty {
                if settled == 0 { pingIfIdle() }
                return settled
            }
            for entry in due {
                guard fence.holds else { return settled }
                switch scan(entry, fence) {
                case .settled: settled += 1
                case .retried: return settled
                case .fencedOff: return settled
                }
            }
        }
        return settled
    }

    /// How one record's scan ended.
    enum Step {
        /// Published or rejected.
        case settled
        /// No verdict: retried later.
        case retried
        /// The fence was lost: nothing more was written.
        case fencedOff
    }

    /// Scans and settles one record.
    func scan(_ entry: ScanEntry, _ fence: PassFence) -> Step {
        let record = entry.record
        if record.size > settings.maxBytes {
            delete(record)
            return settle(
                record,
                .rejected(
                    reason: Self.tooLargeToScan,
                    detail: "the object is \(record.size) bytes, over scan.maxBytes \(settings.maxBytes)"), fence)
        }
        var scanned: Int64 = 0
        let verdict: ClamdVerdict
        var missing = false
        var changed = false
        do throws(ClamdError) {
            verdict = try clamd.scan { (writer) throws(ClamdError) in
                var feedFailure: ClamdError?
                do throws(ObjectStoreError) {
                    let size = try storage.read(key: record.objectKey, ifMatch: record.etag) {
                        (bytes) throws(ObjectStoreError) in
                        do throws(ClamdError) {
                            try writer.write(bytes)
                        } catch {
                            feedFailure = error
                            throw .connection("clamd stopped taking bytes")
                        }
                        scanned += Int64(bytes.count)
                    }
                    missing = size == nil
                } catch {
                    if let feedFailure { throw feedFailure }
                    if case .status(412, _) = error {
                        changed = true
                        return
                    }
                    throw .source("\(error)")
                }
            }
        } catch {
            return retry(entry, error: "\(error)", fence, clamdDown: error.isScannerDown)
        }
        bytesScanned.add(Int(clamping: scanned), ordering: .relaxed)
        if missing { return settleMissing(entry, fence) }
        if changed {
            delete(record)
            return settle(
                record,
                .rejected(reason: Self.objectChanged, detail: "the object was replaced after its confirmation"), fence)
        }
        markUp()
        switch verdict {
        case .clean: return publish(record, fence)
        case .tooLarge:
            delete(record)
            return settle(
                record, .rejected(reason: Self.tooLargeToScan, detail: "over clamd's StreamMaxLength"), fence)
        case .found(let signature):
            // Noted before the object goes: a crash after the delete still rejects with the signature.
            guard
                noteRetry(record, dueAtMs: env.nowMillis(), error: Self.foundNote + signature, fence) != nil
            else { return .fencedOff }
            delete(record)
            return settle(record, .rejected(reason: Self.malwareFound, detail: signature), fence)
        }
    }

    /// A clean record: promoted to its `publishKey` when it has one, then published.
    private func publish(_ record: ImageRecord, _ fence: PassFence) -> Step {
        var key = record.objectKey
        if let permanent = record.publishKey, permanent != record.objectKey {
            do throws(ObjectStoreError) {
                try storage.copy(
                    from: record.objectKey, to: permanent, contentType: record.detectedType,
                    expecting: ObjectInfo(size: record.size, contentType: nil, etag: record.etag))
                try storage.delete(key: record.objectKey)
            } catch {
                return retry(
                    ScanEntry(record: record, attempts: 0, dueAtMs: 0, lastError: nil), error: "promotion: \(error)",
                    fence, clamdDown: false)
            }
            key = permanent
        }
        return settle(record, .published(objectKey: key), fence)
    }

    /// A record whose object is not under its key: promoted already (published), noted as malware
    /// (rejected), or gone (rejected `OBJECT_MISSING`).
    private func settleMissing(_ entry: ScanEntry, _ fence: PassFence) -> Step {
        let record = entry.record
        if let note = entry.lastError, note.hasPrefix(Self.foundNote) {
            return settle(
                record, .rejected(reason: Self.malwareFound, detail: String(note.dropFirst(Self.foundNote.count))),
                fence)
        }
        if let permanent = record.publishKey {
            let copy: ObjectInfo?
            do throws(ObjectStoreError) {
                copy = try storage.head(key: permanent)
            } catch {
                return retry(entry, error: "\(error)", fence, clamdDown: false)
            }
            // Only a clean scan copies there (`publish`), and only the scanned object (by its ETag).
            if let copy, copy.etag == record.etag || copy.size == record.size {
                return settle(record, .published(objectKey: permanent), fence)
            }
        }
        return settle(
            record, .rejected(reason: Self.objectMissing, detail: "the object was gone before its scan"), fence)
    }

    /// Settles `record` through the fence, with its event.
    private func settle(_ record: ImageRecord, _ settlement: ScanSettlement, _ fence: PassFence) -> Step {
        let outcome: ImageRecord??
        do throws(RecordsError) {
            outcome = try fence.write(to: store) { (writes) throws(RecordsError) -> ImageRecord? in
                try writes.settleScan(id: record.id, settlement) { settled in
                    switch settled.state {
                    case .published: webhooks.completed(settled)
                    case .rejected: webhooks.rejected(settled)
                    case .scanning: []
                    }
                }
            }
        } catch {
            return .retried
        }
        guard let outcome else { return .fencedOff }
        guard let settledRecord = outcome else {
            // Not scanning any more: deleted by its owner meanwhile (its upload key's object with it), or
            // settled by an earlier attempt whose answer was lost. A copy promoted for a record that is
            // gone would be kept by nothing: it goes too.
            if case .published(let key) = settlement, key != record.objectKey { deletePromoted(record, key) }
            return .settled
        }
        switch settlement {
        case .published:
            clean.add(1, ordering: .relaxed)
            events(
                .scanSettled(recordId: record.id, type: record.type, outcome: "published", reason: nil, detail: nil))
        case .rejected(let reason, let detail):
            if reason == Self.malwareFound { found.add(1, ordering: .relaxed) }
            if reason == Self.tooLargeToScan { tooLarge.add(1, ordering: .relaxed) }
            events(
                .scanSettled(
                    recordId: settledRecord.id, type: record.type, outcome: "rejected", reason: reason, detail: detail))
        case .retry: break
        }
        return .settled
    }

    /// Puts the record's next scan off after a scan with no verdict.
    private func retry(_ entry: ScanEntry, error: String, _ fence: PassFence, clamdDown: Bool) -> Step {
        failures.add(1, ordering: .relaxed)
        if clamdDown { markDown(error) }
        let delay = settings.retryDelayMs(afterAttempts: entry.attempts + 1)
        // A note of a found signature stays (the object may be gone already).
        let note = entry.lastError.flatMap { $0.hasPrefix(Self.foundNote) ? $0 : nil } ?? error
        guard noteRetry(entry.record, dueAtMs: env.nowMillis() + delay, error: note, fence) != nil else {
            return .fencedOff
        }
        events(.scanRetried(recordId: entry.record.id, attempts: entry.attempts + 1, retryInMs: delay, error: error))
        return .retried
    }

    /// Writes a `.retry` settlement: the record as stored, or nil when fenced off or failed.
    private func noteRetry(_ record: ImageRecord, dueAtMs: Int64, error: String, _ fence: PassFence) -> ImageRecord? {
        do throws(RecordsError) {
            let written = try fence.write(to: store) { (writes) throws(RecordsError) -> ImageRecord? in
                try writes.settleScan(id: record.id, .retry(dueAtMs: dueAtMs, error: error), events: { _ in [] })
            }
            guard let written else { return nil }
            return written ?? record
        } catch {
            return nil
        }
    }

    /// Deletes the record's object (a failure is logged; the settlement goes on and a later delete of
    /// the same key is harmless).
    private func delete(_ record: ImageRecord) {
        do throws(ObjectStoreError) {
            try storage.delete(key: record.objectKey)
        } catch {
            events(.scanObjectKept(recordId: record.id, key: record.objectKey, error: "\(error)"))
        }
    }

    /// Deletes the copy promoted to `key` for `record` when the record no longer exists.
    private func deletePromoted(_ record: ImageRecord, _ key: String) {
        do {
            guard try store.record(id: record.id, ownerId: record.ownerId) == nil else { return }
            try storage.delete(key: key)
        } catch {
            events(.scanObjectKept(recordId: record.id, key: key, error: "\(error)"))
        }
    }

    /// Pings clamd when nothing was due, at most every 5 s.
    private func pingIfIdle() {
        let now = env.nowMillis()
        guard now - lastPingMs.load(ordering: .relaxed) >= 5000 else { return }
        lastPingMs.store(now, ordering: .relaxed)
        do throws(ClamdError) {
            try clamd.ping()
            markUp()
        } catch {
            markDown("\(error)")
        }
    }

    /// Notes clamd answering.
    private func markUp() { state.withLock { $0 = .up } }

    /// Notes clamd not answering (keeping the first time it did not).
    private func markDown(_ error: String) {
        let now = env.nowMillis()
        state.withLock { health in
            if case .down(_, let since) = health {
                health = .down(error: error, sinceMs: since)
            } else {
                health = .down(error: error, sinceMs: now)
            }
        }
    }
}

extension ClamdError {
    /// Whether the error says clamd itself is down or too slow (not storage).
    var isScannerDown: Bool {
        switch self {
        case .unreachable, .timeout, .protocolError: true
        case .source: false
        }
    }
}
