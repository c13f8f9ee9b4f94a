import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// HTTPS termination through the binary's configuration, and certificate reload on SIGHUP, with a
/// throwaway CA (scripts/make-test-ca.sh) and a real client (curl).
@Suite("TLS (binary, curl)", .serialized, .heavy(aloneSeconds: 10))
struct TLSBinaryTests {
    static func run(_ tool: String, _ args: [String]) throws -> (status: Int32, out: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = args
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    static func makeCA(_ dir: String) throws {
        let script = ServerProcess.packageRoot.appendingPathComponent("scripts/make-test-ca.sh").path
        let r = try run("/bin/bash", [script, dir])
        #expect(r.status == 0, "make-test-ca.sh: \(r.status) \(r.out)")
        #expect(FileManager.default.fileExists(atPath: dir + "/server.pem"), "\(script) made no certificate in \(dir)")
    }

    static func curl(_ port: Int, ca: String) throws -> (status: Int32, out: String) {
        try run("/usr/bin/curl", ["-sS", "--max-time", "5", "--cacert", ca, "https://127.0.0.1:\(port)/healthz"])
    }

    @Test("HTTPS with the configured certificate; SIGHUP loads a new one for new connections")
    func httpsAndReload() async throws {
        let dir = Temporary.directory()
        try Self.makeCA(dir + "/a")
        try FileManager.default.createDirectory(atPath: dir + "/live", withIntermediateDirectories: true)
        for f in ["server.pem", "server.key"] {
            try FileManager.default.copyItem(atPath: "\(dir)/a/\(f)", toPath: "\(dir)/live/\(f)")
        }
        let (env, _) = TestEnvironment.serverEnvironment(
            s3: nil,
            extra: [
                "PRESIGN_TLS_ENABLED": "true", "PRESIGN_TLS_CERTIFICATE_FILE": dir + "/live/server.pem",
                "PRESIGN_TLS_PRIVATE_KEY_FILE": dir + "/live/server.key",
            ])
        let server = try await ServerProcess(environment: env)
        defer { server.stop() }
        let first = try Self.curl(server.port, ca: dir + "/a/ca.pem")
        #expect(first.status == 0)
        #expect(first.out == #"{"status":"ok"}"#)
        // Plain HTTP to the TLS port is not served.
        let plain = try RawClient(port: server.port, timeoutMs: 3000)
        plain.send("GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(plain.readResponse() == nil)

        // A new CA and certificate, swapped in place, then SIGHUP.
        try Self.makeCA(dir + "/b")
        for f in ["server.pem", "server.key"] {
            try FileManager.default.removeItem(atPath: "\(dir)/live/\(f)")
            try FileManager.default.copyItem(atPath: "\(dir)/b/\(f)", toPath: "\(dir)/live/\(f)")
        }
        server.signal(SIGHUP)
        #expect(await server.line(containing: "TLS certificate reloaded", within: 5) != nil)
        #expect(try Self.curl(server.port, ca: dir + "/b/ca.pem").status == 0)
        #expect(try Self.curl(server.port, ca: dir + "/a/ca.pem").status != 0, "the old CA no longer verifies")

        // A reload that fails keeps serving the current certificate.
        try FileManager.default.removeItem(atPath: dir + "/live/server.key")
        server.signal(SIGHUP)
        #expect(await server.line(containing: "TLS reload failed", within: 5) != nil)
        #expect(try Self.curl(server.port, ca: dir + "/b/ca.pem").status == 0)
    }
}
