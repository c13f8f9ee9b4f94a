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
    /// WAL pages after which the thread is asked to checkpoint (16,384 pages: 64 MiB).
    let thresholdPages: Int32
    /// WAL pages after which the commit checkpoints itself.
    let backstopPages: Int32
    private let path: String
    private let busyTimeoutMs: Int
    private struct State {
        var requested = false
        var stopping = false
        var started = false
    }
    private let monitor = Monitor(State())
    private var thread: PThread?
    /// Checkpoints run by the thread, and inline by a commit past the backstop.
    let checkpoints = Atomic<Int>(0)
    let inlineCheckpoints = Atomic<Int>(0)

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
        if pages >= backstopPages, let database {
            inlineCheckpoints.add(1, ordering: .relaxed)
            _ = sqlite3_wal_checkpoint_v2(database, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            return
        }
        guard pages >= thresholdPages else { return }
        let (wake, start) = monitor.withLock { state -> (Bool, Bool) in
            guard !state.requested, !state.stopping else { return (false, false) }
            state.requested = true
            let start = !state.started
            state.started = true
            return (true, start)
        }
        if start {
            thread = PThread(name: "presignd-checkpoint") { [self] in run() }
        } else if wake {
            monitor.broadcast()
        }
    }

    /// The thread: a PASSIVE checkpoint per request, on its own connection (opened at the first).
    private func run() {
        var connection: SQLiteConnection?
        while true {
            let go = monitor.withLock { state, waiter -> Bool in
                while !state.requested && !state.stopping { waiter.wait() }
                return !state.stopping
            }
            guard go else { return }
            if connection == nil {
                connection = try? SQLiteConnection(
                    path: path, create: false, readOnly: false, busyTimeoutMs: busyTimeoutMs, cacheKiB: 64)
            }
            if let connection {
                _ = sqlite3_wal_checkpoint_v2(connection.handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                checkpoints.add(1, ordering: .relaxed)
            }
            // A request made while this one ran is dropped here: the WAL is asked again past the threshold.
            monitor.withLock { state in state.requested = false }
        }
    }

    /// Stops the thread (a checkpoint in progress finishes first) and waits for it.
    func stop() {
        let running = monitor.withLock { state -> Bool in
            state.stopping = true
            return state.started
        }
        guard running else { return }
        monitor.broadcast()
        thread?.join()
        thread = nil
    }
}
