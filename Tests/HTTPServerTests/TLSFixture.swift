import Foundation
import HTTP1
import HTTPServer
import Logging
import Synchronization
import System
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Certificates for TLS tests, made at test time by `scripts/make-test-ca.sh` in a fresh directory.
struct TLSFixture {
    /// The directory holding `ca.pem`, `server.pem` and `server.key`.
    let directory: URL

    /// The script, found from this file's path (Tests/HTTPServerTests/ -> package root).
    static let script: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/make-test-ca.sh")

    /// A new throw-away CA and server certificate in a new temporary directory.
    init() throws {
        // Three tries in fresh directories: under a full parallel test run one attempt once ended with
        // no ca.pem; the script now says which file openssl failed to write.
        var failures: [String] = []
        for _ in 0..<3 {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
                "presignd-tls-\(UUID().uuidString)", isDirectory: true)
            let r = try ChildProcess.run("bash", [TLSFixture.script.path, dir.path])
            if r.status == 0 {
                directory = dir
                return
            }
            failures.append(r.stderrText)
        }
        throw TestFailure("make-test-ca.sh failed 3 times: \(failures.joined(separator: " | "))")
    }

    /// The CA certificate clients trust.
    var caFile: String { directory.appendingPathComponent("ca.pem").path }
    /// The server's certificate.
    var certificateFile: String { directory.appendingPathComponent("server.pem").path }
    /// The server's private key.
    var keyFile: String { directory.appendingPathComponent("server.key").path }
    /// Server options for these files.
    var options: TLSOptions { TLSOptions(certificateFile: certificateFile, privateKeyFile: keyFile) }

    /// A path inside the fixture's directory.
    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Removes the directory.
    func remove() { try? FileManager.default.removeItem(at: directory) }
}

/// A child process run to completion, with its output captured.
struct ChildProcess {
    /// The exit status (or the terminating signal's number).
    var status: Int32
    /// Standard output.
    var stdout: Data
    /// Standard error.
    var stderr: Data

    /// Standard output as text.
    var text: String { String(decoding: stdout, as: UTF8.self) }
    /// Standard error as text.
    var stderrText: String { String(decoding: stderr, as: UTF8.self) }

    /// Runs `program` (looked up in PATH) with `arguments`, feeding `input` on standard input; kills it
    /// after `timeout` seconds.
    static func run(_ program: String, _ arguments: [String], input: Data = Data(), timeout: Double = 30) throws
        -> ChildProcess
    {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [program] + arguments
        let inPipe = Pipe()
        let outPipe = Pipe()
        let errPipe = Pipe()
        p.standardInput = inPipe
        p.standardOutput = outPipe
        p.standardError = errPipe
        try p.run()
        let out = PipeReader(outPipe.fileHandleForReading)
        let err = PipeReader(errPipe.fileHandleForReading)
        if !input.isEmpty { try? inPipe.fileHandleForWriting.write(contentsOf: input) }
        try? inPipe.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning && Date() < deadline { usleep(5_000) }
        if p.isRunning { kill(p.processIdentifier, SIGKILL) }  // SIGTERM may be blocked in the child
        p.waitUntilExit()
        return ChildProcess(status: p.terminationStatus, stdout: out.finish(), stderr: err.finish())
    }
}

/// Reads a pipe to its end on a thread of its own (so a child never blocks on a full pipe).
final class PipeReader: @unchecked Sendable {
    private let lock = NSCondition()
    private var data = Data()
    private var done = false

    /// Starts reading `handle`.
    init(_ handle: FileHandle) {
        let t = Thread { [self] in
            while true {
                let chunk = handle.availableData
                lock.lock()
                if chunk.isEmpty {
                    done = true
                    lock.broadcast()
                    lock.unlock()
                    return
                }
                data.append(chunk)
                lock.broadcast()
                lock.unlock()
            }
        }
        t.start()
    }

    /// The bytes read so far.
    var snapshot: Data {
        lock.lock()
        defer { lock.unlock() }
        return data
    }

    /// Waits until `predicate` holds for the bytes read so far, or the end of the pipe, or `timeout`.
    func wait(timeout: Double, until predicate: (Data) -> Bool) -> Data {
        let deadline = Date().addingTimeInterval(timeout)
        lock.lock()
        defer { lock.unlock() }
        while !predicate(data) && !done && Date() < deadline { _ = lock.wait(until: min(deadline, Date() + 0.05)) }
        return data
    }

    /// Waits for the end of the pipe and returns everything read.
    func finish() -> Data {
        lock.lock()
        defer { lock.unlock() }
        while !done { lock.wait() }
        return data
    }
}

/// `curl` against the server, with the options tests share (quiet, errors shown, a time limit).
enum Curl {
    /// Runs curl with `arguments`; its exit status tells how the transfer went (0 success, 35 handshake
    /// failure, 60 certificate not trusted).
    static func run(_ arguments: [String], input: Data = Data()) throws -> ChildProcess {
        try ChildProcess.run("curl", ["-sS", "--max-time", "20"] + arguments, input: input)
    }
}

/// One response as a test client read it.
struct ClientResponse {
    /// The status code.
    var status: Int
    /// The header fields, in order.
    var headers: [(name: String, value: String)]
    /// The body.
    var body: [UInt8]

    /// The first value of header `name` (case-insensitive).
    func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }

    /// The body as text.
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// An `openssl s_client` session kept open: what is sent goes out as TLS application data, and the
/// server's answers are parsed as HTTP/1.1 responses (Content-Length framed).
final class OpenSSLClient {
    private let process = Process()
    private let input = Pipe()
    private let reader: PipeReader
    private let errors: PipeReader
    private var consumed = 0

    /// Connects to 127.0.0.1:`port`, trusting `caFile`; `extra` adds s_client options.
    init(port: Int, caFile: String, extra: [String] = []) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            [
                "openssl", "s_client", "-quiet", "-connect", "127.0.0.1:\(port)", "-servername", "localhost",
                "-CAfile", caFile, "-verify_return_error",
            ] + extra
        let output = Pipe()
        let errorPipe = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errorPipe
        try process.run()
        reader = PipeReader(output.fileHandleForReading)
        errors = PipeReader(errorPipe.fileHandleForReading)
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Sends `text` with one write to s_client (which sends it on with one `SSL_write` per read).
    func send(_ text: String) {
        try? input.fileHandleForWriting.write(contentsOf: Data(text.utf8))
    }

    /// The next complete response, or nil when none arrives within `timeout` seconds.
    func readResponse(timeout: Double = 10) -> ClientResponse? {
        var total: Int?
        let data = reader.wait(timeout: timeout) { data in
            if total == nil {
                // Only the head is searched (in the first 64 KiB), once; then only the count is checked.
                let window = Array(data[consumed..<min(data.count, consumed + 65_536)])
                total = OpenSSLClient.parse(window, headOnly: true)?.1
            }
            return total.map { data.count - consumed >= $0 } ?? false
        }
        guard let total, data.count - consumed >= total,
            let (response, used) = OpenSSLClient.parse(Array(data[consumed..<(consumed + total)]), headOnly: false)
        else { return nil }
        consumed += used
        return response
    }

    /// True when s_client ends (the server closed the connection) within `timeout` seconds.
    func endsWithin(_ timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        return !process.isRunning
    }

    /// Bytes received beyond the responses read.
    var unreadBytes: Int { reader.snapshot.count - consumed }

    /// Standard error so far (handshake problems).
    var stderrText: String { String(decoding: errors.snapshot, as: UTF8.self) }

    /// Ends the session.
    func close() {
        try? input.fileHandleForWriting.close()
        // SIGKILL: a child inherits the test thread's signal mask, where SIGTERM may be blocked.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// One Content-Length framed response from the start of `bytes`, and how many bytes it takes
    /// (with `headOnly`, the body may still be missing and is left empty).
    static func parse(_ bytes: [UInt8], headOnly: Bool) -> (ClientResponse, Int)? {
        guard bytes.count >= 4 else { return nil }
        var end = -1
        for i in 0...(bytes.count - 4)
        where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            end = i
            break
        }
        guard end >= 0 else { return nil }
        var lines = String(decoding: bytes[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines.removeFirst().split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { return nil }
        var headers: [(name: String, value: String)] = []
        for l in lines {
            if let colon = l.firstIndex(of: ":") {
                headers.append(
                    (String(l[..<colon]), String(l[l.index(after: colon)...]).trimmingCharacters(in: .whitespaces)))
            }
        }
        let length = headers.first { $0.name.lowercased() == "content-length" }.flatMap { Int($0.value) } ?? 0
        let total = end + 4 + length
        if headOnly { return (ClientResponse(status: status, headers: headers, body: []), total) }
        guard bytes.count >= total else { return nil }
        return (ClientResponse(status: status, headers: headers, body: Array(bytes[(end + 4)..<total])), total)
    }
}

/// A server on 127.0.0.1, port 0, terminating TLS, with routes for the TLS tests; stopped by `stop()`.
final class TLSTestServer: @unchecked Sendable {
    /// The server.
    let server: HTTPServer
    /// Its port.
    var port: Int { server.port }
    /// `/slow` requests whose handler has begun (on a worker), for tests that act while one is in flight.
    let slowStarted = SlowCounter()

    /// Starts a server with `tls`; `configure` may change other options.
    init(tls: TLSOptions, configure: (inout ServerOptions) -> Void = { _ in }) throws {
        var router = Router()
        let ok = Array(#"{"status":"ok"}"#.utf8)
        router.add(Route(.GET, "/hello") { _ in .respond(.json(200, ok)) })
        router.add(Route(.GET, "/n/{id}") { r in .respond(.json(200, Array((r.parameter("id") ?? "").utf8))) })
        router.add(Route(.POST, "/echo", maxBodyBytes: 1 << 20) { r in .respond(.json(200, r.body)) })
        router.add(
            Route(.GET, "/big") { r in
                let n = Int(r.queryItems()?.first { $0.name == "bytes" }?.value ?? "0") ?? 0
                return .respond(Response(status: 200, body: TLSTestServer.pattern(count: n)))
            })
        let started = slowStarted
        router.add(
            Route(.GET, "/slow") { r in
                let ms = Int(r.queryItems()?.first { $0.name == "ms" }?.value ?? "100") ?? 100
                return .blocking {
                    started.count.add(1, ordering: .relaxed)
                    usleep(UInt32(ms * 1000))
                    return .json(200, Array("slept \(ms)".utf8))
                }
            })
        var o = ServerOptions()
        o.port = 0
        o.eventLoops = 1
        o.workerThreads = 2
        o.accessLog = false
        o.tls = tls
        configure(&o)
        server = try HTTPServer(options: o, router: router, logSink: LogSink(fd: 2))
        server.start()
    }

    /// `https://127.0.0.1:<port><path>`.
    func url(_ path: String) -> String { "https://127.0.0.1:\(port)\(path)" }

    /// Stops the server and waits for its loops.
    func stop() {
        server.shutdown()
        server.wait()
    }

    /// Deterministic bytes: byte i is `i % 251` (a prime, so 4 KiB blocks never repeat in step).
    static func pattern(count: Int) -> [UInt8] {
        // Copied a cycle at a time: a 12 MB body made byte by byte took seconds of CPU in a debug build.
        let cycle = (0..<251).map { UInt8($0) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        while bytes.count < count { bytes.append(contentsOf: cycle.prefix(count - bytes.count)) }
        return bytes
    }
}
