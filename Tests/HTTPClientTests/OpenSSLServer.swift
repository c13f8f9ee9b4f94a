import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// An `openssl s_server -www` on a free loopback port, with the certificates of
/// `scripts/make-test-ca.sh` (a 200 status page for `GET /`, over TLS only).
final class OpenSSLServer {
    /// The directory holding `ca.pem`, `server.pem` and `server.key`, made once per test process.
    static let certificates: Result<String, TLSTestError> = {
        let directory = NSTemporaryDirectory() + "objectstore-tls-" + UUID().uuidString
        let script = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath().deletingLastPathComponent()
            .deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/make-test-ca.sh").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script, directory]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return .failure(TLSTestError(message: "cannot run \(script): \(error)"))
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            return .failure(TLSTestError(message: "\(script) failed with status \(process.terminationStatus)"))
        }
        return .success(directory)
    }()

    /// The port it accepts on.
    let port: Int
    /// The `openssl` process.
    private let process: Process

    /// Starts `openssl s_server` and waits until it accepts connections.
    init() throws {
        let directory = try Self.certificates.get()
        port = try LoopbackListener.freePort()
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = [
            "s_server", "-quiet", "-www", "-cert", directory + "/server.pem", "-key", directory + "/server.key",
            "-accept", String(port),
        ]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(5)
        while !Self.accepts(port) {
            guard Date() < deadline, process.isRunning else {
                stop()
                throw TLSTestError(message: "openssl s_server did not start on port \(port)")
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// The CA certificate that signed the server's.
    static var caFile: String { get throws { try certificates.get() + "/ca.pem" } }

    /// Stops the server (SIGKILL to the process started here, by its PID) and reaps it.
    ///
    /// Not SIGTERM: test threads block most signals, a spawned child inherits that mask, and a
    /// blocked SIGTERM would leave `waitUntilExit` waiting forever.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// True when a TCP connection to 127.0.0.1:`port` succeeds.
    private static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

/// A TLS test's setup failure.
struct TLSTestError: Error, CustomStringConvertible {
    /// What went wrong.
    var message: String
    /// The message.
    var description: String { message }
}
