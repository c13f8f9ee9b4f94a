import Crypto
import Testing

/// Signing with throwaway keys, checked by the verifier (and RS256 determinism, RFC 8017, section 8.2).
struct PrivateKeyTests {
    @Test func rs256SignaturesVerifyAndAreDeterministic() throws {
        let keys = try ThrowawayKeys.shared.get()
        let key = try PrivateKey(pem: keys.rsaPrivatePEM)
        let verifier = try #require(try PublicKey.keys(pem: keys.rsaPublicPEM).first)
        #expect(key.publicKey.subjectPublicKeyInfo == verifier.subjectPublicKeyInfo)
        let message = Array("header.payload".utf8)
        let signature = try key.sign(message, algorithm: .rsaPKCS1v15SHA256)
        #expect(signature.count == 256)
        #expect(try key.sign(message, algorithm: .rsaPKCS1v15SHA256) == signature)
        #expect(verifier.isValidSignature(signature, for: message, algorithm: .rsaPKCS1v15SHA256))
        #expect(throws: CryptoError.self) { try key.sign(message, algorithm: .ecdsaP256SHA256) }
    }

    @Test func es256SignaturesAreRawAndVerify() throws {
        let keys = try ThrowawayKeys.shared.get()
        let key = try PrivateKey(pem: keys.ecPrivatePEM)
        let verifier = try #require(try PublicKey.keys(pem: keys.ecPublicPEM).first)
        for length in [0, 1, 64, 1000] {
            let message = [UInt8](repeating: 0x61, count: length)
            let signature = try key.sign(message, algorithm: .ecdsaP256SHA256)
            #expect(signature.count == 64)
            #expect(verifier.isValidSignature(signature, for: message, algorithm: .ecdsaP256SHA256))
        }
        #expect(throws: CryptoError.self) { try key.sign([1], algorithm: .rsaPKCS1v15SHA256) }
    }

    @Test func privateKeysNeverPrintAndBadInputIsRefused() throws {
        let keys = try ThrowawayKeys.shared.get()
        let key = try PrivateKey(pem: keys.rsaPrivatePEM)
        #expect("\(key)" == "<redacted>")
        #expect(String(reflecting: key) == "<redacted>")
        #expect(throws: CryptoError.self) { try PrivateKey(pem: keys.encryptedPrivatePEM) }
        #expect(throws: CryptoError.self) { try PrivateKey(pem: keys.rsaPublicPEM) }
        #expect(throws: CryptoError.self) { try PrivateKey(pem: []) }
    }
}
