import Foundation

/// A fresh temporary directory where command-line tools (`openssl`, scripts/make-test-ca.sh) make the
/// keys and certificates of a test, to be read back into memory; `remove()` deletes it.
public struct ToolDirectory: Sendable {
    /// The directory.
    public let url: URL

    /// Creates a new directory named `prefix` and a random suffix.
    public init(prefix: String) throws {
        url = URL(fileURLWithPath: Temporary.path(prefix))
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Runs `executable` with `arguments` in the directory, its output discarded; throws unless it
    /// exits with 0.
    public func run(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = url
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TestFailure("\(executable) \(arguments) failed") }
    }

    /// Runs `openssl` with `arguments` in the directory.
    public func openssl(_ arguments: String...) throws { try run("/usr/bin/openssl", arguments) }

    /// The bytes of the file `name` in the directory.
    public func read(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: url.appendingPathComponent(name))) }

    /// Deletes the directory and everything in it.
    public func remove() { try? FileManager.default.removeItem(at: url) }

    /// Makes the test CA in `ca/` (scripts/make-test-ca.sh: `ca/ca.pem`, and `ca/server.pem` for
    /// 127.0.0.1) and two RSA-2048 keys with certificates it issues to `commonName`, the shape of SNS's
    /// signing certificates: `signer.key` and `signer.pem`, `other.key` and `other.pem`.
    public func makeSigningPKI(commonName: String) throws {
        let script = ServerProcess.packageRoot.appendingPathComponent("scripts/make-test-ca.sh")
        try run("/bin/bash", [script.path, url.appendingPathComponent("ca").path])
        for name in ["signer", "other"] {
            try openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "\(name).key")
            try openssl("req", "-new", "-key", "\(name).key", "-subj", "/CN=\(commonName)", "-out", "\(name).csr")
            try openssl(
                "x509", "-req", "-in", "\(name).csr", "-CA", "ca/ca.pem", "-CAkey", "ca/ca.key", "-CAcreateserial",
                "-days", "1", "-sha256", "-out", "\(name).pem")
        }
    }
}
