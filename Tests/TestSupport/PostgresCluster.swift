import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A PostgreSQL 15 cluster of a test's own, on its own loopback port, that the test may restart, stop,
/// start and kill: made by `scripts/start-postgres.sh`, driven by `scripts/pg-fault.sh`, and removed by
/// `scripts/stop-postgres.sh` in `destroy()` (so the shared cluster of the other PostgreSQL tests is
/// never disturbed). Needs what those scripts need: root, the postgres user, PostgreSQL 15 installed.
public final class PostgresCluster: @unchecked Sendable {
    /// Its port on 127.0.0.1.
    public let port: Int
    /// `postgres://user:password@127.0.0.1:port/db`.
    public let url: String
    private let stateDir: String

    /// Makes and starts a cluster on a free port chosen from `ports` (the state dir is presignd-pg-PORT
    /// in the temporary directory, `TMPDIR`, removed again by `destroy`). The default range lies below
    /// Linux's ephemeral ports (32768-60999): while the cluster is stopped, a client connection of any
    /// process could otherwise take its port as its local port, and the restart fails on "address in use".
    public init(ports: ClosedRange<Int> = 26_000...31_999) throws {
        var chosen: Int?
        for _ in 0..<50 {
            let candidate = Int.random(in: ports)
            if PostgresCluster.isFree(candidate)
                && !FileManager.default.fileExists(atPath: PostgresCluster.stateDir(port: candidate))
            {
                chosen = candidate
                break
            }
        }
        guard let port = chosen else { throw TestFailure("no free port for a PostgreSQL cluster") }
        self.port = port
        stateDir = PostgresCluster.stateDir(port: port)
        let (status, output) = PostgresCluster.script("start-postgres.sh", [], port: port)
        guard status == 0, let line = output.split(separator: "\n").last(where: { $0.contains("POSTGRES_URL=") }),
            let eq = line.firstIndex(of: "=")
        else {
            _ = PostgresCluster.script("stop-postgres.sh", [], port: port)
            throw TestFailure("start-postgres.sh failed (\(status)): \(output)")
        }
        url = String(line[line.index(after: eq)...])
    }

    deinit { destroy() }

    /// `pg_ctl restart -m fast`: sessions end, a checkpoint, the server is back when this returns.
    public func restartFast() throws { try control("restart-fast") }

    /// `pg_ctl restart -m immediate`: no checkpoint, crash recovery at start; back when this returns.
    public func restartImmediate() throws { try control("restart-immediate") }

    /// `pg_ctl stop -m fast`: refused connections from when this returns.
    public func stop() throws { try control("stop") }

    /// Starts it again (after `stop` or `kill9`); accepting connections when this returns.
    public func start() throws { try control("start") }

    /// SIGKILL to the postmaster.
    public func kill9() throws { try control("kill9") }

    /// Stops it and deletes its state dir. Safe to call more than once.
    public func destroy() {
        guard FileManager.default.fileExists(atPath: stateDir) else { return }
        _ = PostgresCluster.script("stop-postgres.sh", [], port: port)
        // stop-postgres.sh removes the state dir; if a straggler kept it (a file written as it went),
        // remove what is left, ours by its marker.
        if FileManager.default.fileExists(atPath: stateDir + "/.presignd-postgres") {
            try? FileManager.default.removeItem(atPath: stateDir)
        }
    }

    private func control(_ action: String) throws {
        let (status, output) = PostgresCluster.script("pg-fault.sh", [action], port: port)
        guard status == 0 else { throw TestFailure("pg-fault.sh \(action) failed (\(status)): \(output)") }
    }

    /// Runs `scripts/NAME args` with PG_PORT; its exit status and standard output and error.
    static func script(_ name: String, _ args: [String], port: Int) -> (Int32, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        p.arguments = [ServerProcess.packageRoot.appendingPathComponent("scripts/\(name)").path] + args
        var env = ProcessInfo.processInfo.environment
        env["PG_PORT"] = String(port)
        env["PG_STATE_DIR"] = stateDir(port: port)
        p.environment = env
        let out = URL(fileURLWithPath: Temporary.path("pgcluster"))
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: out) }
        guard let handle = try? FileHandle(forWritingTo: out) else { return (-1, "cannot open \(out.path)") }
        p.standardOutput = handle
        p.standardError = handle
        p.standardInput = FileHandle.nullDevice
        do { try p.run() } catch { return (-1, "\(error)") }
        p.waitUntilExit()
        try? handle.close()
        let text = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
        return (p.terminationStatus, text)
    }

    /// The state directory of the cluster on `port`: in the temporary directory, which scripts/test.sh
    /// puts on a RAM-backed file system (a cluster's initdb and its relation files cost less there).
    static func stateDir(port: Int) -> String {
        NSTemporaryDirectory() + "presignd-pg-\(port)"
    }

    /// True when nothing listens on 127.0.0.1:`port` (a bind succeeds).
    static func isFree(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_port = UInt16(port).bigEndian
        inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr)
        return withUnsafePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
