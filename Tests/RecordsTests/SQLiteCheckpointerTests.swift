import Foundation
import TestSupport
import Testing

@testable import Records

/// SQLite's WAL checkpoints off the commit path (`SQLiteCheckpointer`): past its threshold the WAL hook
/// asks the checkpoint thread, past the backstop the commit checkpoints itself; either way the WAL stays
/// bounded (the hook replaces SQLite's automatic checkpoint, so without them it would only grow).
@Suite(.blocking) struct SQLiteCheckpointerTests {
    /// A fresh WAL database with one table, its writer connection watched by `checkpointer` settings.
    static func open(thresholdPages: Int32, backstopPages: Int32) throws -> (
        directory: String, path: String, writer: SQLiteConnection, checkpointer: SQLiteCheckpointer
    ) {
        let directory = NSTemporaryDirectory() + "records-checkpoint-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/c.db"
        let writer = try SQLiteConnection(path: path, create: true, readOnly: false, busyTimeoutMs: 5000)
        #expect(try writer.scalarText("PRAGMA journal_mode = WAL") == "wal")
        try writer.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, data BLOB NOT NULL)")
        let checkpointer = SQLiteCheckpointer(
            path: path, busyTimeoutMs: 5000, thresholdPages: thresholdPages, backstopPages: backstopPages)
        checkpointer.watch(writer)
        return (directory, path, writer, checkpointer)
    }

    /// Commits `count` transactions of one 8 KiB row each (two to three WAL pages per commit); the WAL
    /// file's largest size seen after a commit.
    static func fill(_ writer: SQLiteConnection, path: String, count: Int) throws -> Int {
        let row = [UInt8](repeating: 0x5A, count: 8192)
        var largest = 0
        for _ in 0..<count {
            _ = try writer.transaction { () throws(RecordsError) in
                try writer.run("INSERT INTO t (data) VALUES (?)", [.blob(row)])
            }
            let size = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int
            largest = max(largest, size ?? 0)
        }
        return largest
    }

    /// Waits (at most 30 s) until the thread has run at least `count` checkpoints and is idle.
    static func waitForCheckpoints(_ checkpointer: SQLiteCheckpointer, atLeast count: Int) -> Bool {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if checkpointer.checkpoints.load(ordering: .relaxed) >= count && !checkpointer.busy { return true }
            usleep(2000)
        }
        return false
    }

    @Test("past the threshold the thread checkpoints; once it has, the next commit starts the WAL over")
    func theThreadCheckpointsAndTheWALStartsOver() throws {
        let (directory, path, writer, checkpointer) = try Self.open(thresholdPages: 64, backstopPages: 1 << 30)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        defer { checkpointer.stop() }
        for round in 1...5 {
            // About 500 pages, past the 64-page threshold: the thread is asked (no commit checkpoints).
            _ = try Self.fill(writer, path: path, count: 200)
            #expect(Self.waitForCheckpoints(checkpointer, atLeast: round), "round \(round): no checkpoint")
            // The writer paused (as the intent writer does between loop turns): the WAL was copied whole,
            // so it started over (here, or already during the round when the thread caught up, and then
            // fewer than 64 pages followed, below the threshold). Without that it would hold every page
            // written since the start: about 500 per round.
            _ = try Self.fill(writer, path: path, count: 1)
            let pages = checkpointer.lastCommitPages.load(ordering: .relaxed)
            #expect(pages < 64 + 8, "round \(round): the WAL holds \(pages) pages after the checkpoint")
        }
        #expect(checkpointer.inlineCheckpoints.load(ordering: .relaxed) == 0, "no commit checkpointed itself")
        #expect(try writer.query("SELECT count(*) FROM t", []) { $0.int64(0) } == [1005])
        // 1,005 commits of 8 KiB went through a WAL that never held more than a round's.
        let wal = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int ?? 0
        #expect(wal < 4 * 1024 * 1024, "the WAL file is \(wal) bytes")
    }

    @Test("past the backstop every commit checkpoints inline, so a writer that never pauses keeps it bounded")
    func theBackstopCheckpointsInline() throws {
        let (directory, path, writer, checkpointer) = try Self.open(thresholdPages: 64, backstopPages: 64)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        defer { checkpointer.stop() }
        // 2,000 commits without a pause: about 16 MiB through a WAL held near 64 pages (256 KiB).
        let largest = try Self.fill(writer, path: path, count: 2000)
        #expect(checkpointer.inlineCheckpoints.load(ordering: .relaxed) > 0)
        #expect(checkpointer.checkpoints.load(ordering: .relaxed) == 0, "the thread was never asked")
        #expect(largest < 2 * 1024 * 1024, "the WAL reached \(largest) bytes for 16 MiB written")
    }

    @Test("once stopped, commits past the threshold ask nothing and start no thread")
    func stoppedChecksNothing() throws {
        let (directory, path, writer, checkpointer) = try Self.open(thresholdPages: 16, backstopPages: 1 << 30)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try Self.fill(writer, path: path, count: 200)
        #expect(Self.waitForCheckpoints(checkpointer, atLeast: 1))
        checkpointer.stop()
        let done = checkpointer.checkpoints.load(ordering: .relaxed)
        _ = try Self.fill(writer, path: path, count: 200)
        #expect(checkpointer.checkpoints.load(ordering: .relaxed) == done)
        #expect(!checkpointer.busy, "no request is left for a thread that is gone")
        checkpointer.stop()  // a second stop does nothing
    }
}
