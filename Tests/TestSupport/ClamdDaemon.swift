import Foundation

/// The real ClamAV daemon for the malware scan's tests (docs/scanning.md): the shared one scripts/test.sh
/// starts (`TestServices.clamd()`), or one of a test's own that it may stop and start again
/// (`ClamdDaemon()`, through scripts/start-clamd.sh and stop-clamd.sh), each with only the project's
/// signature, matched by `marker`.
public final class ClamdDaemon: @unchecked Sendable {
    /// Its TCP port on 127.0.0.1.
    public let port: Int
    /// `tcp://127.0.0.1:PORT`, as `scan.clamdAddress` takes it.
    public var address: String { "tcp://127.0.0.1:\(port)" }
    /// Its state directory (config, database, socket, log).
    public let stateDir: String

    /// Starts a clamd of the test's own on a free port of `ports` (below the ephemeral range, so that
    /// while it is stopped no client connection takes its port).
    public init(ports: ClosedRange<Int> = 22_000...25_999) throws {
        var chosen: Int?
        for _ in 0..<50 {
            let candidate = Int.random(in: ports)
            if PostgresCluster.isFree(candidate)
                && !FileManager.default.fileExists(atPath: "/tmp/presignd-clamd-\(candidate)")
            {
                chosen = candidate
                break
            }
        }
        guard let port = chosen else { throw TestFailure("no free port for clamd") }
        self.port = port
        stateDir = "/tmp/presignd-clamd-\(port)"
        try start()
    }

    deinit { destroy() }

    /// Starts it (again); answering PING when this returns.
    public func start() throws {
        let (status, output) = script("start-clamd.sh")
        guard status == 0 else { throw TestFailure("start-clamd.sh failed (\(status)): \(output)") }
    }

    /// Stops it: connections are refused from when this returns.
    public func stop() throws {
        let (status, output) = script("stop-clamd.sh")
        guard status == 0 else { throw TestFailure("stop-clamd.sh failed (\(status)): \(output)") }
    }

    /// Stops it and removes its state directory. Safe to call more than once.
    public func destroy() {
        guard FileManager.default.fileExists(atPath: stateDir) else { return }
        _ = script("stop-clamd.sh")
        try? FileManager.default.removeItem(atPath: stateDir)
    }

    /// Runs `scripts/NAME` for this daemon's port and state directory.
    private func script(_ name: String) -> (Int32, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        p.arguments = [ServerProcess.packageRoot.appendingPathComponent("scripts/\(name)").path]
        var env = ProcessInfo.processInfo.environment
        env["CLAMD_PORT"] = String(port)
        env["CLAMD_STATE_DIR"] = stateDir
        p.environment = env
        let out = URL(fileURLWithPath: Temporary.path("clamd"))
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: out) }
        guard let handle = try? FileHandle(forWritingTo: out) else { return (-1, "cannot open \(out.path)") }
        p.standardOutput = handle
        p.standardError = handle
        p.standardInput = FileHandle.nullDevice
        do { try p.run() } catch { return (-1, "\(error)") }
        p.waitUntilExit()
        try? handle.close()
        return (p.terminationStatus, (try? String(contentsOf: out, encoding: .utf8)) ?? "")
    }

    /// The bytes of the project's test signature (scripts/start-clamd.sh): a file holding them is found
    /// as `Presignd.Test.Marker-1`.
    public static let marker = Array("PRESIGND-TEST-MALWARE-MARKER-5f2c9a".utf8)
}

extension TestServices {
    /// The shared clamd's address from `PRESIGN_TEST_CLAMD_ADDRESS` (scripts/test.sh starts it); the
    /// tests fail (not skip) when it is missing.
    public static func clamdAddress() throws -> String {
        guard let address = ProcessInfo.processInfo.environment["PRESIGN_TEST_CLAMD_ADDRESS"], !address.isEmpty else {
            throw TestFailure(
                "PRESIGN_TEST_CLAMD_ADDRESS is not set: these tests need the real clamd; run the suite with scripts/test.sh, which starts it, or export what `eval \"$(CLAMD_PORT=23310 bash scripts/start-clamd.sh)\"` prints (CLAMD_ADDRESS) as PRESIGN_TEST_CLAMD_ADDRESS"
            )
        }
        return address
    }
}
