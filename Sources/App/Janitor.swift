import Logging
import ObjectStore
import Records
import Synchronization
import System

/// Deletes expired, never-confirmed intents in bounded batches, and the objects they leave behind.
///
/// An intent is removed once its URL has been expired for `graceMs` (an upload that finished at the last
/// second can still be confirmed meanwhile). Before its intent goes, the janitor deletes the object at
/// the intent's permanent key, if any: only a confirmation that promoted the upload (copy) and then
/// failed to store its record can have put it there, and nothing else would ever find it. The uploaded
/// object itself (at the upload key) is deleted only when `deleteObjects` is set
/// (`records.deleteUnconfirmedObjects`; otherwise a bucket lifecycle rule is expected to expire it).
///
/// An intent is removed only after its objects are gone, so a failure anywhere (a storage error
/// mid-batch, the database going away, a kill -9 of the process) leaves the intents not yet handled
/// for the next sweep, which deletes again (a DELETE of a missing object succeeds) and finishes the
/// work. Runs on its own thread every `intervalMs`; logs `janitor started`, `janitor stopped`, each
/// sweep that removed something (`janitor swept`) and each that stopped on an error (`janitor pass
/// stopped`); the counters below feed `/metrics`.
final class Janitor: @unchecked Sendable {
    static let graceMs: Int64 = 5 * 60 * 1000

    private let store: any RecordStore
    private let storage: S3Client?
    private let deleteObjects: Bool
    private let batchSize: Int
    private let intervalMs: Int
    private let env: AppEnvironment
    private let log: LogSink
    private let lock = Monitor()
    private var stopping = false
    private var thread: PThread?
    /// Aborts old multipart uploads after each pass (the Uppy routes), when they are on.
    var multipart: MultipartJanitor?

    /// Sweeps finished (with or without an error).
    let sweeps = Atomic<Int>(0)
    /// Sweeps that stopped on an error (their remaining intents wait for the next one).
    let failedSweeps = Atomic<Int>(0)
    /// Intents removed.
    let intentsRemoved = Atomic<Int>(0)
    /// Objects deleted (upload and permanent keys, and replaced records' objects).
    let objectsDeleted = Atomic<Int>(0)
    /// Replaced records' objects deleted from the pending deletions (`RecordStore.fillSlot`).
    let replacedDeleted = Atomic<Int>(0)

    init(
        store: any RecordStore, storage: S3Client?, deleteObjects: Bool, batchSize: Int, intervalMs: Int,
        env: AppEnvironment, log: LogSink
    ) {
        self.store = store
        self.storage = storage
        self.deleteObjects = deleteObjects
        self.batchSize = batchSize
        self.intervalMs = intervalMs
        self.env = env
        self.log = log
    }

    func start() {
        log.info(
            "janitor started",
            ["intervalMs": intervalMs, "batchSize": batchSize, "deleteUnconfirmedObjects": deleteObjects])
        thread = PThread(name: "presignd-janitor") { [self] in
            while true {
                let stop = lock.withLock { () -> Bool in
                    if !stopping { lock.wait(millis: intervalMs) }
                    return stopping
                }
                if stop { return }
                _ = sweep()
                _ = sweepReplaced()
                multipart?.sweep()
            }
        }
    }

    /// Stops the thread (a sweep in progress finishes its current call first) and waits for it.
    func stop() {
        lock.withLock { stopping = true }
        lock.broadcast()
        guard let running = thread else { return }
        running.join()
        thread = nil
        log.info("janitor stopped", ["sweeps": sweeps.load(ordering: .relaxed)])
    }

    /// One pass: removes batches until none is left (or an error); returns how many intents were removed.
    @discardableResult
    func sweep() -> Int {
        var removed = 0
        var deleted = 0
        defer {
            sweeps.add(1, ordering: .relaxed)
            if removed > 0 { log.info("janitor swept", ["intentsRemoved": removed, "objectsDeleted": deleted]) }
        }
        while true {
            var done: [String] = []
            do {
                let expired = try store.expiredIntents(nowMs: env.nowMillis() - Janitor.graceMs, limit: batchSize)
                if expired.isEmpty { return removed }
                for intent in expired {
                    deleted += try deleteObjects(of: intent)
                    done.append(intent.imageKey)
                }
                try store.deleteIntents(imageKeys: done)
                intentsRemoved.add(done.count, ordering: .relaxed)
                removed += done.count
                if expired.count < batchSize { return removed }
            } catch {
                // The intents whose objects are gone may go now; the rest wait for the next sweep.
                if !done.isEmpty, (try? store.deleteIntents(imageKeys: done)) != nil {
                    intentsRemoved.add(done.count, ordering: .relaxed)
                    removed += done.count
                }
                failedSweeps.add(1, ordering: .relaxed)
                log.warn("janitor pass stopped", ["error": "\(error)", "intentsLeft": "for the next sweep"])
                return removed
            }
        }
    }

    /// One pass over the pending deletions of replaced records' objects (what a replacement left when
    /// its own delete failed or the process died after the new record was durable): deletes each object,
    /// then its row, at most `batchSize` per pass. Returns how many were finished; a failure leaves the
    /// rest for the next pass.
    @discardableResult
    func sweepReplaced() -> Int {
        guard let storage else { return 0 }
        var finished: [String] = []
        defer {
            if !finished.isEmpty {
                replacedDeleted.add(finished.count, ordering: .relaxed)
                objectsDeleted.add(finished.count, ordering: .relaxed)
                log.info("janitor deleted replaced objects", ["objectsDeleted": finished.count])
            }
        }
        do {
            let keys = try store.pendingObjectDeletions(limit: batchSize)
            for key in keys {
                try storage.delete(key: key)
                try store.finishObjectDeletions([key])
                finished.append(key)
            }
        } catch {
            failedSweeps.add(1, ordering: .relaxed)
            log.warn("janitor pass stopped", ["error": "\(error)", "replacedLeft": "for the next sweep"])
        }
        return finished.count
    }

    /// Deletes what `intent` may have left in storage: its permanent-key object always, its upload
    /// when `deleteObjects`. Returns how many DELETEs were sent.
    private func deleteObjects(of intent: UploadIntent) throws -> Int {
        guard let storage else { return 0 }
        var count = 0
        if let permanent = intent.permanentKey {
            try storage.delete(key: permanent)
            count += 1
        }
        if deleteObjects {
            try storage.delete(key: intent.objectKey)
            count += 1
        }
        objectsDeleted.add(count, ordering: .relaxed)
        return count
    }
}
