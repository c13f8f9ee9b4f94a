import HTTPServer
import ObjectStore
import Records
import System

/// Deletes expired, never-confirmed intents in bounded batches and, when configured, their objects.
///
/// An intent is removed once its URL has been expired for `graceMs` (an upload that finished at the last
/// second can still be confirmed meanwhile). Runs on its own thread every `intervalMs`.
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
        thread = PThread(name: "presignd-janitor") { [self] in
            while true {
                let stop = lock.withLock { () -> Bool in
                    if !stopping { lock.wait(millis: intervalMs) }
                    return stopping
                }
                if stop { return }
                _ = sweep()
                multipart?.sweep()
            }
        }
    }

    func stop() {
        lock.withLock { stopping = true }
        lock.broadcast()
        thread?.join()
        thread = nil
    }

    /// One pass: removes batches until none is left (or an error); returns how many intents were removed.
    @discardableResult
    func sweep() -> Int {
        var removed = 0
        while true {
            do {
                let expired = try store.expiredIntents(nowMs: env.nowMillis() - Janitor.graceMs, limit: batchSize)
                if expired.isEmpty { return removed }
                if deleteObjects, let storage {
                    for i in expired { try storage.delete(key: i.objectKey) }
                }
                try store.deleteIntents(imageKeys: expired.map(\.imageKey))
                removed += expired.count
                if expired.count < batchSize { return removed }
            } catch {
                log.warn("janitor pass stopped", ["error": "\(error)"])
                return removed
            }
        }
    }
}
