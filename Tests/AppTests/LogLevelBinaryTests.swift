import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `log.level` on the real binary: lines below the configured level are not written (issue 19, point 7).
@Suite("log.level on the binary", .heavy)
struct LogLevelBinaryTests {
    /// The TCP port process `pid` listens on (from its socket descriptors in /proc and the kernel's
    /// table of TCP sockets), or nil while it has none.
    static func listeningPort(pid: Int32) -> Int? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd") else { return nil }
        var inodes = Set<String>()
        for name in names {
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(name)"),
                target.hasPrefix("socket:[")
            {
                inodes.insert(String(target.dropFirst(8).dropLast()))
            }
        }
        // procfs files report no size: read until end of file (a one-shot read gets only the first page).
        let fd = open("/proc/net/tcp", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        let table = String(decoding: bytes, as: UTF8.self)
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            // sl local_address rem_address st ... inode (the tenth field); 0A is LISTEN.
            guard fields.count > 9, fields[3] == "0A", inodes.contains(String(fields[9])),
                let colon = fields[1].lastIndex(of: ":")
            else { continue }
            return Int(fields[1][fields[1].index(after: colon)...], radix: 16)
        }
        return nil
    }

    @Test("warn: no info line is written (start-up lines, the access log), warn lines are")
    func warnHidesInfo() async throws {
        // With `warn` the server writes no "listening" line to learn its port from: it listens on port 0,
        // and the port is read from /proc once the process has a listening socket.
        let (env, _) = TestEnvironment.serverEnvironment(
            s3: nil,
            extra: ["PRESIGN_LOG_LEVEL": "warn", "PRESIGN_AUTH_MODE": "none", "PRESIGN_LOG_ACCESS_LOG": "true"])
        let server = try ServerProcess(environment: env, expectListening: false)
        defer { server.stop() }
        var port: Int?
        _ = await eventually(within: 30, pollMs: 10) {
            port = Self.listeningPort(pid: server.process.processIdentifier)
            return port != nil || !server.process.isRunning
        }
        let listening = SocketTarget(port: try #require(port, "no listening socket: \(server.stderr)"))
        let response = try await listening.exchange("GET", "/healthz", host: "x")
        #expect(response.status == 200)
        // After SIGTERM and exit every line the server wrote is in the pipe: the check below is final.
        server.signal(SIGTERM)
        #expect(await server.exit() == 0)
        let lines = server.stderr.split(separator: "\n")
        #expect(lines.contains { $0.contains(#""level":"warn""#) && $0.contains("auth.mode is none") }, "\(lines)")
        #expect(!lines.contains { $0.contains(#""level":"info""#) }, "\(lines)")
        #expect(!lines.contains { $0.contains(#""msg":"request""#) }, "no access-log line: \(lines)")
    }

    @Test("debug: debug lines are written; info (the default): they are not")
    func debugShowsDebug() async throws {
        let (debugEnv, _) = TestEnvironment.serverEnvironment(s3: nil, extra: ["PRESIGN_LOG_LEVEL": "debug"])
        let debug = try await ServerProcess(environment: debugEnv)
        defer { debug.stop() }
        // The debug line is written before "listening", on the same thread: it is there already.
        let line = try #require(
            debug.stderr.split(separator: "\n").first { $0.contains(#""level":"debug","msg":"configuration""#) },
            "\(debug.stderr)")
        #expect(line.contains(#""bucket":"uploads""#))
        #expect(!line.contains("wJalrXUtnFEMI"), "no secret in the debug line")

        let (infoEnv, _) = TestEnvironment.serverEnvironment(s3: nil)
        let info = try await ServerProcess(environment: infoEnv)
        defer { info.stop() }
        #expect(info.stderr.contains(#""msg":"listening""#))
        #expect(!info.stderr.contains(#""level":"debug""#), "\(info.stderr)")
    }
}
