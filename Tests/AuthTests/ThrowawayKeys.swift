import Crypto
import Foundation

/// Signing keys made at test time by `openssl genpkey`, read into memory, their files deleted.
///
/// Made once per test process (`shared`): two RSA-2048 keys, two EC P-256 keys (the second plays
/// an attacker's key), a self-signed certificate of the first RSA key, and an RSA-1024 key.
struct ThrowawayKeys: Sendable {
    /// The first RSA key.
    let rsa1: PrivateKey
    /// The second RSA key.
    let rsa2: PrivateKey
    /// The first EC P-256 key.
    let ec1: PrivateKey
    /// The second EC P-256 key (an attacker's).
    let ec2: PrivateKey
    /// SubjectPublicKeyInfo PEM of `rsa1`.
    let rsa1PublicPEM: [UInt8]
    /// SubjectPublicKeyInfo PEM of `rsa2`.
    let rsa2PublicPEM: [UInt8]
    /// SubjectPublicKeyInfo PEM of `ec1`.
    let ec1PublicPEM: [UInt8]
    /// A self-signed X.509 certificate of `rsa1`, PEM.
    let rsa1CertificatePEM: [UInt8]
    /// PKCS #8 PEM of `rsa1` (a file an operator must not configure).
    let rsa1PrivatePEM: [UInt8]
    /// SubjectPublicKeyInfo PEM of an RSA-1024 key.
    let rsa1024PublicPEM: [UInt8]
    /// The modulus of that key, big-endian (for a JWK: Crypto refuses to load the key itself).
    let rsa1024Modulus: [UInt8]

    /// The keys of this test process, or the error that prevented making them.
    static let shared: Result<ThrowawayKeys, Error> = Result { try ThrowawayKeys() }

    /// Runs `openssl` in a fresh temporary directory and reads its output.
    private init() throws {
        let directory = try TemporaryDirectory()
        @discardableResult
        func run(_ arguments: String...) throws -> String {
            let output = Pipe()
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            process.arguments = arguments
            process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            let printed = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "openssl \(arguments)"])
            }
            return String(decoding: printed, as: UTF8.self)
        }
        func read(_ name: String) throws -> [UInt8] { try directory.read(name) }
        for name in ["rsa1", "rsa2"] {
            try run("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "\(name).pem")
            try run("pkey", "-in", "\(name).pem", "-pubout", "-out", "\(name).pub.pem")
        }
        for name in ["ec1", "ec2"] {
            try run("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "\(name).pem")
            try run("pkey", "-in", "\(name).pem", "-pubout", "-out", "\(name).pub.pem")
        }
        try run(
            "req", "-new", "-x509", "-key", "rsa1.pem", "-subj", "/CN=presignd-test", "-days", "1", "-out", "rsa1.crt")
        try run("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024", "-out", "rsa1024.pem")
        try run("pkey", "-in", "rsa1024.pem", "-pubout", "-out", "rsa1024.pub.pem")
        rsa1 = try PrivateKey(pem: read("rsa1.pem"))
        rsa2 = try PrivateKey(pem: read("rsa2.pem"))
        ec1 = try PrivateKey(pem: read("ec1.pem"))
        ec2 = try PrivateKey(pem: read("ec2.pem"))
        rsa1PublicPEM = try read("rsa1.pub.pem")
        rsa2PublicPEM = try read("rsa2.pub.pem")
        ec1PublicPEM = try read("ec1.pub.pem")
        rsa1CertificatePEM = try read("rsa1.crt")
        rsa1PrivatePEM = try read("rsa1.pem")
        rsa1024PublicPEM = try read("rsa1024.pub.pem")
        let modulus = try run("rsa", "-pubin", "-in", "rsa1024.pub.pem", "-modulus", "-noout")  // "Modulus=<HEX>"
        rsa1024Modulus = Hex.decode(String(modulus.drop { $0 != "=" }.dropFirst().prefix { $0 != "\n" })) ?? []
    }
}

/// A directory under the system's temporary directory, removed when the value is released.
final class TemporaryDirectory: Sendable {
    /// Its absolute path.
    let path: String

    /// Creates a fresh, empty directory.
    init() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("presignd-auth-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        path = url.path
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Writes `bytes` to the file `name` in the directory and returns its path.
    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let file = path + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return file
    }

    /// The contents of the file `name` in the directory.
    func read(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path + "/" + name)))
    }
}
