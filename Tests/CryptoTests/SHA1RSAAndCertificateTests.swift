import Foundation
import Testing

@testable import Crypto

/// RSA PKCS #1 v1.5 with SHA-1 (Amazon SNS SignatureVersion 1) beside SHA-256, and a certificate's key
/// from PEM, against keys and signatures made by the `openssl` command-line tool.
@Suite struct SHA1RSAAndCertificateTests {
    /// The signature `openssl dgst -<digest> -sign` makes of `message` with `privatePEM`.
    static func opensslSignature(_ message: [UInt8], privatePEM: [UInt8], digest: String) throws -> [UInt8] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "presignd-sha1-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(privatePEM).write(to: directory.appendingPathComponent("key.pem"))
        try Data(message).write(to: directory.appendingPathComponent("message"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = ["dgst", "-\(digest)", "-sign", "key.pem", "-out", "signature", "message"]
        process.currentDirectoryURL = directory
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return Array(try Data(contentsOf: directory.appendingPathComponent("signature")))
    }

    @Test func opensslSHA1SignaturesVerifyAndOnlyWithSHA1() throws {
        let keys = try ThrowawayKeys.shared.get()
        let key = try #require(try PublicKey.keys(pem: keys.rsaPublicPEM).first)
        let message = Array("Message\nhello\nMessageId\n1\nTimestamp\n2026-12-01T00:00:00.000Z\n".utf8)
        let sha1 = try Self.opensslSignature(message, privatePEM: keys.rsaPrivatePEM, digest: "sha1")
        let sha256 = try Self.opensslSignature(message, privatePEM: keys.rsaPrivatePEM, digest: "sha256")
        #expect(key.isValidSignature(sha1, for: message, algorithm: .rsaPKCS1v15SHA1))
        #expect(!key.isValidSignature(sha1, for: message, algorithm: .rsaPKCS1v15SHA256))
        #expect(key.isValidSignature(sha256, for: message, algorithm: .rsaPKCS1v15SHA256))
        #expect(!key.isValidSignature(sha256, for: message, algorithm: .rsaPKCS1v15SHA1))
        var tampered = message
        tampered[0] ^= 1
        #expect(!key.isValidSignature(sha1, for: tampered, algorithm: .rsaPKCS1v15SHA1))
        var flipped = sha1
        flipped[10] ^= 0x40
        #expect(!key.isValidSignature(flipped, for: message, algorithm: .rsaPKCS1v15SHA1))
        #expect(!key.isValidSignature(Array(sha1.dropLast()), for: message, algorithm: .rsaPKCS1v15SHA1))
    }

    @Test func privateKeysSignWithSHA1AndEveryKeyKindIsChecked() throws {
        let keys = try ThrowawayKeys.shared.get()
        let rsa = try PrivateKey(pem: keys.rsaPrivatePEM)
        let message = Array("to sign".utf8)
        let signature = try rsa.sign(message, algorithm: .rsaPKCS1v15SHA1)
        #expect(signature == (try Self.opensslSignature(message, privatePEM: keys.rsaPrivatePEM, digest: "sha1")))
        #expect(rsa.publicKey.isValidSignature(signature, for: message, algorithm: .rsaPKCS1v15SHA1))
        // An EC key neither signs nor verifies SHA-1 RSA.
        let ec = try PrivateKey(pem: keys.ecPrivatePEM)
        #expect(throws: CryptoError.self) { try ec.sign(message, algorithm: .rsaPKCS1v15SHA1) }
        #expect(!ec.publicKey.isValidSignature(signature, for: message, algorithm: .rsaPKCS1v15SHA1))
    }

    @Test func aCertificatesKeyIsItsSubjectsPublicKey() throws {
        let keys = try ThrowawayKeys.shared.get()
        let key = try PublicKey.certificateKey(pem: keys.rsaCertificatePEM)
        #expect(key.kind == .rsa(bits: 2048))
        let message = Array("certificate".utf8)
        let signature = try Self.opensslSignature(message, privatePEM: keys.rsaPrivatePEM, digest: "sha256")
        #expect(key.isValidSignature(signature, for: message, algorithm: .rsaPKCS1v15SHA256))
        // Only a certificate first: a bare public key, a private key, garbage and nothing are refused.
        for pem in [keys.rsaPublicPEM, keys.rsaPrivatePEM, Array("not pem".utf8), []] {
            #expect(throws: CryptoError.self) { try PublicKey.certificateKey(pem: pem) }
        }
        var broken = keys.rsaCertificatePEM
        broken[broken.count / 2] = UInt8(ascii: "!")
        #expect(throws: CryptoError.self) { try PublicKey.certificateKey(pem: broken) }
    }
}
