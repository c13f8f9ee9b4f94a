import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `scripts/instances.sh` driven from a test: three instances of the real binary on a fresh PostgreSQL
/// schema and the test RGW, behind HAProxy (round robin, health checks on `/readyz`), in a temporary
/// directory; every process is stopped by its PID by `stop()`.
final class InstancesHarness: @unchecked Sendable {
    /// The state directory (PIDs, ports, logs, haproxy.cfg).
    let dir: String
    /// HAProxy's port on 127.0.0.1.
    private(set) var port = 0
    /// The records URL the instances share.
    let recordsURL: String
    private let environment: [String: String]

    /// Starts the instances with the test services and `extra` settings, then HAProxy, with its state in
    /// `dir`. A failed start stops whatever it had started before it throws.
    init(extra: [String: String], dir: String = Temporary.directory("instances")) throws {
        let s3 = try TestEnvironment.s3()
        self.dir = dir
        recordsURL = try Backend.postgres.recordsURL(dir: dir)
        var env: [String: String] = [
            "PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "INSTANCES_DIR": dir, "PRESIGND_BINARY": ServerProcess.binary.path,
            "AWS_EC2_METADATA_DISABLED": "true", "PRESIGN_RECORDS_URL": recordsURL,
            "PRESIGN_S3_ACCESS_KEY_ID": s3.accessKey, "PRESIGN_S3_SECRET_ACCESS_KEY": s3.secretKey,
            "PRESIGN_S3_ENDPOINT": s3.endpoint, "PRESIGN_S3_BUCKET": s3.bucket, "PRESIGN_S3_REGION": s3.region,
            "PRESIGN_SERVER_EVENT_LOOPS": "2", "PRESIGN_LIMITS_ENABLED": "false",
        ]
        for (k, v) in extra { env[k] = v }
        environment = env
        let out: String
        do {
            out = try run(["start"])
        } catch {
            // The script stops what it started when it fails; if it was killed by the watchdog first,
            // this stops the rest (nothing of a failed start is left running).
            stop()
            throw error
        }
        guard let r = out.range(of: "INSTANCES_PORT="), let p = Int(out[r.upperBound...].prefix { $0.isNumber })
        else {
            stop()
            throw TestFailure("instances.sh start printed no port: \(out)")
        }
        port = p
    }

    /// `init(extra:dir:)` on a thread of its own (the script starts three binaries and HAProxy and waits
    /// for them), for async tests.
    static func start(extra: [String: String], dir: String = Temporary.directory("instances")) async throws
        -> InstancesHarness
    {
        try await onThread { try InstancesHarness(extra: extra, dir: dir) }
    }

    /// Runs `scripts/instances.sh` with `arguments` on a thread of its own; its standard output.
    @discardableResult
    func running(_ arguments: [String]) async throws -> String {
        try await onThread { try self.run(arguments) }
    }

    /// Runs `scripts/instances.sh` with `arguments`; its standard output. Bounded: the script's own waits
    /// are 30 s each, and it is killed after 120 s. Its output goes to a file, read once it has exited:
    /// a pipe read to its end would also wait for any other process that came to hold its write end.
    @discardableResult
    func run(_ arguments: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        p.arguments = [ServerProcess.packageRoot.appendingPathComponent("scripts/instances.sh").path] + arguments
        p.environment = environment
        let outPath = dir + ".stdout"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        defer { try? out.close() }
        let errPath = dir + ".stderr"
        if !FileManager.default.fileExists(atPath: errPath) {
            _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        }
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        defer { try? err.close() }
        try err.seekToEnd()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let pid = p.processIdentifier
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 120, execute: watchdog)
        p.waitUntilExit()
        watchdog.cancel()
        guard p.terminationStatus == 0 else {
            let log = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
            throw TestFailure("instances.sh \(arguments.joined(separator: " ")) failed: \(log.suffix(3000))")
        }
        return (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
    }

    /// SIGTERM instance `n` and wait for it to exit.
    func term(_ n: Int) async throws { try await running(["term", "\(n)"]) }
    /// SIGKILL instance `n`.
    func kill9(_ n: Int) async throws { try await running(["kill", "\(n)"]) }
    /// Starts instance `n` again on its port and waits until HAProxy has it UP.
    func up(_ n: Int) async throws { try await running(["up", "\(n)"]) }
    /// Instance `n`'s own port.
    func instancePort(_ n: Int) throws -> Int {
        guard let p = Int(try run(["port", "\(n)"]).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw TestFailure("no port for instance \(n)")
        }
        return p
    }

    /// Stops HAProxy and every instance (by PID).
    func stop() { _ = try? run(["stop"]) }
}
