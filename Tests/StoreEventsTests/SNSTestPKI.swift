import Crypto
import Foundation

/// A test CA made by scripts/make-test-ca.sh and two RSA-2048 signing certificates it issues (the shape
/// of SNS's signing certificates), made once per test process with the `openssl` tool.
struct SNSTestPKI: Sendable {
    /// The signing key of `certificatePEM`.
    let signingKeyPEM: [UInt8]
    /// The certificate SNS's `SigningCertURL` would serve, issued by the test CA.
    let certificatePEM: [UInt8]
    /// Another key, with its own certificate from the same CA (a bad signer).
    let otherKeyPEM: [UInt8]
    /// The other key's certificate.
    let otherCertificatePEM: [UInt8]
    /// The test CA's certificate.
    let caPEM: [UInt8]

    /// The PKI of this test process, or the error that prevented making it.
    static let shared: Result<SNSTestPKI, Error> = Result { try SNSTestPKI() }

    /// Runs make-test-ca.sh and openssl in a temporary directory and reads what they wrote.
    private init() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "presignd-sns-pki-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/make-test-ca.sh")
        func run(_ executable: String, _ arguments: [String]) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            process.currentDirectoryURL = directory
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "\(executable) \(arguments)"])
            }
        }
        try run("/bin/bash", [script.path, directory.appendingPathComponent("ca").path])
        for name in ["signer", "other"] {
            try run(
                "/usr/bin/openssl",
                ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "\(name).key"])
            try run(
                "/usr/bin/openssl",
                ["req", "-new", "-key", "\(name).key", "-subj", "/CN=sns.test-1.amazonaws.com", "-out", "\(name).csr"])
            try run(
                "/usr/bin/openssl",
                [
                    "x509", "-req", "-in", "\(name).csr", "-CA", "ca/ca.pem", "-CAkey", "ca/ca.key", "-CAcreateserial",
                    "-days", "1", "-sha256", "-out", "\(name).pem",
                ])
        }
        func read(_ name: String) throws -> [UInt8] {
            Array(try Data(contentsOf: directory.appendingPathComponent(name)))
        }
        signingKeyPEM = try read("signer.key")
        certificatePEM = try read("signer.pem")
        otherKeyPEM = try read("other.key")
        otherCertificatePEM = try read("other.pem")
        caPEM = try read("ca/ca.pem")
    }
}
