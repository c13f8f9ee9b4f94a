import CSQLite
import Synchronization
import System

/// Checkpoints the WAL from a thread of its own, so that no commit of the writer waits for one.
///
/// Why: with SQLite's automatic checkpoint, the commit that takes the WAL past the threshold copies the
/// whole WAL into the database and syncs it before it returns; every intent waiting for that commit (and
/// every request parked on those intents) waited too. Measured on the issue route at c=256 on one core
/// (15 s, SQLite): p99 132 ms with the automatic checkpoint after 64 MiB, 17.9 ms with none at all.
///
/// How: the writer connection's WAL hook (`watch`) sees the WAL's size after each commit; past
/// `thresholdPages` it asks this thread for a PASSIVE checkpoint on its own connection, which copies
/// what is committed without taking the write lock, so the writer goes on committing meanwhile (the
/// next write transaction after a complete checkpoint starts the WAL over). Past `backstopPages` (the
/// thread cannot keep up, or cannot open its connection) the commit checkpoints inline, as SQLite's
/// automatic checkpoint would, so the WAL stays bounded whatever happens.
final class SQLiteCheckpointer: @unchecked Sendable {
    /// The most checkpoints one request runs in a row while the writer keeps adding frames.
    static let maxPasses = 64
    /// WAL pages after which the thread is asked to checkpoint (16,384 pages: 64 MiB).
    let thresholdPages: Int32
    /// WAL pages after which the commit checkpoints itself.
    let backstopPages: Int32
    private let path: String
    private let busyTimeoutMs: Int
    private struct State {
        var requested = false
        /// Commits that asked for a checkpoint: one that asks while the thread runs makes it go again.
        var asks = 0
        var stopping = false
        /// The thread, once started (kept under the lock: it is started on the writer's thread and
        /// joined by `stop`, whichever thread that runs on).
        var thread: PThread?
    }
    private let monitor = Monitor(State())
    /// Checkpoints run by the thread, and inline by a commit past the backstop.
    let checkpoints = Atomic<Int>(0)
    let inlineCheckpoints = Atomic<Int>(0)
    /// The WAL's frames after the writer's last commit (a WAL started over counts from 0 again).
    let lastCommitPages = Atomic<Int>(0)
    /// Whether the thread has a checkpoint asked for or running.
    var busy: Bool { monitor.withLock { $0.requested } }

    /// A checkpointer of the database at `path`.
    init(path: String, busyTimeoutMs: Int, thresholdPages: Int32 = 16_384, backstopPages: Int32 = 65_536) {
        self.path = path
        self.busyTimeoutMs = busyTimeoutMs
        self.thresholdPages = thresholdPages
        self.backstopPages = max(thresholdPages, backstopPages)
    }

    deinit { stop() }

    /// Installs the WAL hook on `connection` (the writer), replacing SQLite's automatic checkpoint. The
    /// checkpointer must outlive the connection's commits (the store owns both).
    func watch(_ connection: SQLiteConnection) {
        sqlite3_wal_hook(
            connection.handle,
            { context, database, _, pages in
                guard let context else { return SQLITE_OK }
                let checkpointer = Unmanaged<SQLiteCheckpointer>.fromOpaque(context).takeUnretainedValue()
                checkpointer.committed(pages: pages, database: database)
                return SQLITE_OK
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// After a commit left `pages` in the WAL (the writer's thread, inside SQLite's commit).
    private func committed(pages: Int32, database: OpaquePointer?) {
        lastCommitPages.store(Int(pages), ordering: .relaxed)
        if pages >= backstopPages, let database {
            inlineCheckpoints.add(1, ordering: .relaxed)
            _ = sqlite3_wal_checkpoint_v2(database, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            return
        }
        guard pages >= thresholdPages else { return }
        let wake = monitor.withLock { state -> Bool in
            guard !state.stopping else { return false }
            state.asks &+= 1
            guard !state.requested else { return false }
            state.requested = true
            guard state.thread == nil else { return true }
            // Started under the lock: its first wait takes the lock after this returns, and finds the request.
            state.thread = PThread(name: "presignd-checkpoint") { [self] in run() }
            return false
        }
        if wake { monitor.broadcast() }
    }

    /// The thread: a PASSIVE checkpoint per request, on its own connection (opened at the first).
    private func run() {
        var connection: SQLiteConnection?
        while true {
            let seen = monitor.withLock { state, waiter -> Int? in
                while !state.requested && !state.stopping { waiter.wait() }
                return state.stopping ? nil : state.asks
            }
            guard let seen else { return }
            if connection == nil {
                connection = try? SQLiteConnection(
                    path: path, create: false, readOnly: false, busyTimeoutMs: busyTimeoutMs, cacheKiB: 64)
            }
            if let connection {
                // A PASSIVE checkpoint copies the frames committed when it began (its `frames`); the
                // writer may have committed more meanwhile, and the WAL starts over only once every frame
                // was copied. So it goes on until a pass finds all copied and nothing added since the
                // pass before (then the writer's next transaction starts the WAL over), at most
                // `maxPasses` in a row (a reader holding an old snapshot can keep it from ever getting
                // there; the next request tries again).
                var before: Int32 = -1
                for _ in 0..<Self.maxPasses {
                    var frames: Int32 = 0
                    var copied: Int32 = 0
                    let code = sqlite3_wal_checkpoint_v2(
                        connection.handle, nil, SQLITE_CHECKPOINT_PASSIVE, &frames, &copied)
                    checkpoints.add(1, ordering: .relaxed)
                    if code != SQLITE_OK || monitor.withLock({ $0.stopping }) { break }
                    if copied >= frames && frames == before { break }
                    before = frames
                }
            }
            // A commit that asked while this ran may have added frames after the last pass: go again.
            monitor.withLock { state in if state.asks == seen { state.requested = false } }
        }
    }

    /// Stops the thread (a checkpoint in progress finishes first) and waits for it.
    func stop() {
        let thread = monitor.withLock { state -> PThread? in
            state.stopping = true
            defer { state.thread = nil }
            return state.thread
        }
        guard let thread else { return }
        monitor.broadcast()
        thread.join()
    }
}
