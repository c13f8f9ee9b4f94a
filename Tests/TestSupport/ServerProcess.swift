import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The real `presignd` binary, started for a test with its own environment, on port 0; its standard
/// error is captured so tests can read the log and learn the bound port.
public final class ServerProcess: @unchecked Sendable {
    /// The port the server listens on.
    public private(set) var port: Int = 0
    /// The child process.
    public let process: Process
    private let output = Output()
    private let stderrPipe = Pipe()
    private let stdoutPipe = Pipe()

    /// The package root (from this file's path).
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The binary: `PRESIGND_BINARY`, else `.build/debug/presignd` beside the test bundle.
    public static var binary: URL {
        if let p = ProcessInfo.processInfo.environment["PRESIGND_BINARY"] { return URL(fileURLWithPath: p) }
        let bundleDir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let beside = bundleDir.appendingPathComponent("presignd")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        return packageRoot.appendingPathComponent(".build/debug/presignd")
    }

    /// The environment every server of a test starts from, before the test's own variables (the in-process
    /// application reads its configuration from the same): port 0, two event loops, no pause at drain.
    /// AWS_EC2_METADATA_DISABLED: a server whose credential chain falls through never asks the real
    /// instance metadata service (169.254.169.254); a test may override it for a loopback stand-in.
    public static let baseEnvironment: [String: String] = [
        "PATH": "/usr/bin:/bin", "PRESIGN_SERVER_PORT": "0", "PRESIGN_SERVER_EVENT_LOOPS": "2",
        "AWS_EC2_METADATA_DISABLED": "true",
        // No pause for a load balancer between SIGTERM and closing the listeners (a test that checks
        // the pause sets its own).
        "PRESIGN_SERVER_DRAIN_DELAY_MS": "0",
    ]

    /// Starts the server with `environment` added to a minimal one and `arguments`; waits for its
    /// "listening" line (or its exit). Throws if it did not start listening within `timeoutMs`.
    /// `launcher` is a command that execs the binary in the same process, e.g.
    /// `["/usr/bin/taskset", "-c", "0"]` (the binary's path and `arguments` follow it).
    public init(
        environment: [String: String], arguments: [String] = [], timeoutMs: Int = 30_000,
        expectListening: Bool = true, launcher: [String] = []
    ) throws {
        process = Process()
        if let command = launcher.first {
            process.executableURL = URL(fileURLWithPath: command)
            process.arguments = Array(launcher.dropFirst()) + [ServerProcess.binary.path] + arguments
        } else {
            process.executableURL = ServerProcess.binary
            process.arguments = arguments
        }
        var env = ServerProcess.baseEnvironment
        // Sanitizer settings reach the child, so a sanitized test build checks the server too.
        for k in ["TSAN_OPTIONS", "ASAN_OPTIONS"] {
            if let v = ProcessInfo.processInfo.environment[k] { env[k] = v }
        }
        for (k, v) in environment { env[k] = v }
        process.environment = env
        process.standardError = stderrPipe
        process.standardOutput = stdoutPipe
        try process.run()
        // Our ends of the pipes are read by two plain threads with read(2) until end of file.
        // (FileHandle.readabilityHandler + availableData traps on EBADF when a handle is torn down while
        // a read is in flight, which took the whole test process down once.)
        let sink = output
        for (pipe, isError) in [(stderrPipe, true), (stdoutPipe, false)] {
            let fd = dup(pipe.fileHandleForReading.fileDescriptor)
            try? pipe.fileHandleForReading.close()
            let t = Thread {
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
                    if n < 0 && errno == EINTR { continue }
                    if n <= 0 { break }
                    sink.append(Data(buffer[0..<n]), isError: isError)
                }
                Glibc.close(fd)
                sink.markEnded()
            }
            t.start()
        }
        guard expectListening else { return }
        let deadline = Date().addingTimeInterval(Double(timeoutMs) / 1000)
        while Date() < deadline {
            if let p = listeningPort() {
                port = p
                return
            }
            if !process.isRunning { break }
            usleep(10_000)
        }
        let log = stderr
        let state = process.isRunning ? "still running" : "exited with \(process.terminationStatus)"
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        throw TestFailure("presignd did not start listening within \(timeoutMs) ms (\(state)): \(log)")
    }

    private func listeningPort() -> Int? {
        for line in stderr.split(separator: "\n") where line.contains(#""msg":"listening""#) {
            if let r = line.range(of: #""port":"#) {
                let digits = line[r.upperBound...].prefix { $0.isNumber }
                return Int(digits)
            }
        }
        return nil
    }

    /// The first line of standard error that contains `text`, waiting for it up to `timeoutMs` (nil if it
    /// did not come, or the server exited first).
    public func waitForLine(containing text: String, timeoutMs: Int = 15_000) -> String? {
        let deadline = Date().addingTimeInterval(Double(timeoutMs) / 1000)
        func find() -> String? { stderr.split(separator: "\n").first { $0.contains(text) }.map(String.init) }
        while process.isRunning && Date() < deadline {
            if let line = find() { return line }
            usleep(10_000)
        }
        usleep(50_000)  // an exited server's last bytes may still be in the pipe
        return find()
    }

    /// Everything the server wrote to standard error so far.
    public var stderr: String { output.text(isError: true) }

    /// Everything the server wrote to standard output so far.
    public var stdout: String { output.text(isError: false) }

    /// What the child printed, filled by the reader threads.
    final class Output: @unchecked Sendable {
        private let lock = NSLock()
        private var err = Data()
        private var out = Data()
        private var ended = 0

        func append(_ d: Data, isError: Bool) {
            lock.lock()
            if isError { err.append(d) } else { out.append(d) }
            lock.unlock()
        }

        /// Marks one pipe read to its end.
        func markEnded() {
            lock.lock()
            ended += 1
            lock.unlock()
        }

        /// True once both pipes were read to their end (the child and its descriptors are gone).
        var isComplete: Bool {
            lock.lock()
            defer { lock.unlock() }
            return ended == 2
        }

        func text(isError: Bool) -> String {
            lock.lock()
            defer { lock.unlock() }
            return String(decoding: isError ? err : out, as: UTF8.self)
        }
    }

    /// Starts the server as the other initialiser does and awaits its "listening" line, without holding
    /// a thread of the cooperative pool while it waits (an async test's `ServerProcess(environment:)`).
    public convenience init(
        environment: [String: String], arguments: [String] = [], timeoutMs: Int = 30_000, launcher: [String] = []
    ) async throws {
        try self.init(environment: environment, arguments: arguments, expectListening: false, launcher: launcher)
        let listening = await eventually(within: Double(timeoutMs) / 1000, pollMs: 10) {
            port = listeningPort() ?? 0
            return port != 0 || !process.isRunning
        }
        guard listening, port != 0 else {
            let state = process.isRunning ? "still running" : "exited with \(process.terminationStatus)"
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            throw TestFailure("presignd did not start listening within \(timeoutMs) ms (\(state)): \(stderr)")
        }
    }

    /// The first line of standard error that contains `text`, awaited up to `seconds` (nil if it did not
    /// come, or the server exited first).
    public func line(containing text: String, within seconds: Double = 15) async -> String? {
        func find() -> String? { stderr.split(separator: "\n").first { $0.contains(text) }.map(String.init) }
        _ = await eventually(within: seconds, pollMs: 10) { find() != nil || !process.isRunning }
        if find() == nil && !process.isRunning {
            try? await Task.sleep(for: .milliseconds(50))  // an exited server's last bytes may still be in the pipe
        }
        return find()
    }

    /// Awaits the process's exit up to `seconds`; its status, or nil if it is still running.
    public func exit(within seconds: Double = 15) async -> Int32? {
        guard await eventually(within: seconds, pollMs: 10, { !process.isRunning }) else { return nil }
        // The pipes' last bytes: wait (bounded) until both readers reached end of file.
        _ = await eventually(within: 5, pollMs: 2) { output.isComplete }
        return process.terminationStatus
    }

    /// Sends `signal` to the server.
    public func signal(_ sig: Int32) { kill(process.processIdentifier, sig) }

    /// Waits up to `timeoutMs` for the process to exit; returns its status, or nil if it is still running.
    public func waitForExit(timeoutMs: Int = 15_000) -> Int32? {
        let deadline = Date().addingTimeInterval(Double(timeoutMs) / 1000)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { return nil }
        // The pipes' last bytes: wait (bounded) until both readers reached end of file.
        let drained = Date().addingTimeInterval(5)
        while !output.isComplete && Date() < drained { usleep(2_000) }
        return process.terminationStatus
    }

    /// Stops the server (SIGTERM, then SIGKILL after 15 s) if it still runs.
    public func stop() {
        guard process.isRunning else { return }
        signal(SIGTERM)
        if waitForExit() == nil { signal(SIGKILL) }
        _ = waitForExit(timeoutMs: 2000)
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        }
    }
}
