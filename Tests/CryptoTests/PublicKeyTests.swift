import Crypto
import Testing

/// Public keys: the RFC 7515 vectors, PEM forms made by `openssl`, numbers round trips, refusals.
struct PublicKeyTests {
    /// RFC 7515, appendix A.2: the RS256 signature verifies with the key built from its JWK numbers.
    @Test func rfc7515RS256VectorVerifies() throws {
        let key = try PublicKey(
            rsaModulus: base64URLDecoded(RFC7515Vectors.rsaModulus),
            exponent: base64URLDecoded(RFC7515Vectors.rsaExponent))
        #expect(key.kind == .rsa(bits: 2048))
        let message = Array(RFC7515Vectors.rs256SigningInput.utf8)
        let signature = base64URLDecoded(RFC7515Vectors.rs256Signature)
        #expect(key.isValidSignature(signature, for: message, algorithm: .rsaPKCS1v15SHA256))
        var tampered = signature
        tampered[100] ^= 0x01
        #expect(!key.isValidSignature(tampered, for: message, algorithm: .rsaPKCS1v15SHA256))
        #expect(!key.isValidSignature(signature, for: message + [0x20], algorithm: .rsaPKCS1v15SHA256))
        #expect(!key.isValidSignature(Array(signature.dropLast()), for: message, algorithm: .rsaPKCS1v15SHA256))
        #expect(!key.isValidSignature([0] + signature, for: message, algorithm: .rsaPKCS1v15SHA256))
        #expect(!key.isValidSignature(signature, for: message, algorithm: .ecdsaP256SHA256))
    }

    /// RFC 7515, appendix A.3: the ES256 signature (r || s) verifies with the key built from x and y.
    @Test func rfc7515ES256VectorVerifies() throws {
        let key = try PublicKey(p256X: base64URLDecoded(RFC7515Vectors.ecX), y: base64URLDecoded(RFC7515Vectors.ecY))
        #expect(key.kind == .ecP256)
        let message = Array(RFC7515Vectors.es256SigningInput.utf8)
        let signature = base64URLDecoded(RFC7515Vectors.es256Signature)
        #expect(signature.count == 64)
        #expect(Array(signature[0..<8]) == RFC7515Vectors.es256RPrefix)
        #expect(Array(signature[32..<40]) == RFC7515Vectors.es256SPrefix)
        #expect(key.isValidSignature(signature, for: message, algorithm: .ecdsaP256SHA256))
        for position in [0, 31, 32, 63] {
            var tampered = signature
            tampered[position] ^= 0x80
            #expect(!key.isValidSignature(tampered, for: message, algorithm: .ecdsaP256SHA256), "byte \(position)")
        }
        #expect(!key.isValidSignature(signature, for: message, algorithm: .rsaPKCS1v15SHA256))
        // A DER signature is not accepted where r || s is expected.
        let der = try #require(ECDSASignature.der(fromRaw: signature))
        #expect(!key.isValidSignature(der, for: message, algorithm: .ecdsaP256SHA256))
        #expect(!key.isValidSignature([UInt8](repeating: 0, count: 64), for: message, algorithm: .ecdsaP256SHA256))
    }

    @Test func pemFormsOfOneRSAKeyAreTheSameKey() throws {
        let keys = try ThrowawayKeys.shared.get()
        let spki = try PublicKey.keys(pem: keys.rsaPublicPEM)
        let pkcs1 = try PublicKey.keys(pem: keys.rsaPKCS1PublicPEM)
        let certificate = try PublicKey.keys(pem: keys.rsaCertificatePEM)
        #expect(spki.count == 1 && pkcs1.count == 1 && certificate.count == 1)
        #expect(spki[0].kind == .rsa(bits: 2048))
        #expect(pkcs1[0].subjectPublicKeyInfo == spki[0].subjectPublicKeyInfo)
        #expect(certificate[0].subjectPublicKeyInfo == spki[0].subjectPublicKeyInfo)
        let bundle = try PublicKey.keys(pem: keys.rsaCertificatePEM + Array("\nsome text\n".utf8) + keys.ecPublicPEM)
        #expect(bundle.map(\.kind) == [.rsa(bits: 2048), .ecP256])
    }

    @Test func numbersRoundTripThroughJWKForm() throws {
        let keys = try ThrowawayKeys.shared.get()
        let rsa = try #require(try PublicKey.keys(pem: keys.rsaPublicPEM).first)
        let numbers = try #require(rsa.rsaNumbers)
        #expect(numbers.exponent == [0x01, 0x00, 0x01])
        #expect(numbers.modulus.count == 256)
        let rebuilt = try PublicKey(rsaModulus: [0, 0] + numbers.modulus, exponent: [0] + numbers.exponent)
        #expect(rebuilt.subjectPublicKeyInfo == rsa.subjectPublicKeyInfo)
        #expect(rsa.p256Point == nil)

        let ec = try #require(try PublicKey.keys(pem: keys.ecPublicPEM).first)
        let point = try #require(ec.p256Point)
        #expect(point.x.count == 32 && point.y.count == 32)
        #expect(try PublicKey(p256X: point.x, y: point.y).subjectPublicKeyInfo == ec.subjectPublicKeyInfo)
        #expect(ec.rsaNumbers == nil)
    }

    /// Each refusal, with the reason kind; reasons never hold key bytes.
    @Test func unusableKeysAreRefused() throws {
        let keys = try ThrowawayKeys.shared.get()
        let cases: [(String, [UInt8], Bool)] = [  // name, PEM, true when "unsupported" (else "invalid")
            ("RSA-1024", keys.rsa1024PublicPEM, true),
            ("P-384", keys.p384PublicPEM, true),
            ("Ed25519", keys.ed25519PublicPEM, true),
            ("private key", keys.rsaPrivatePEM, false),
            ("EC private key", keys.ecPrivatePEM, false),
            ("encrypted private key", keys.encryptedPrivatePEM, false),
            ("empty", [], false),
            ("no block", Array("just text\n".utf8), false),
            ("bad base64", Array("-----BEGIN PUBLIC KEY-----\n!!!!\n-----END PUBLIC KEY-----\n".utf8), false),
            ("not DER", Array("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n".utf8), false),
            ("other label", Array("-----BEGIN X509 CRL-----\nAAAA\n-----END X509 CRL-----\n".utf8), false),
        ]
        for (name, pem, unsupported) in cases {
            do {
                _ = try PublicKey.keys(pem: pem)
                Issue.record("\(name) was accepted")
            } catch {
                switch error {
                case .unsupportedKey(let reason):
                    #expect(unsupported, "\(name): \(reason)")
                    #expect(!reason.contains("MII"), "\(name)")
                case .invalidKey(let reason):
                    #expect(!unsupported, "\(name): \(reason)")
                    #expect(!reason.contains("MII"), "\(name)")
                default:
                    Issue.record("\(name): \(error)")
                }
            }
        }
        // A good block followed by a private key: the whole document is refused.
        #expect(throws: CryptoError.self) { try PublicKey.keys(pem: keys.rsaPublicPEM + keys.rsaPrivatePEM) }
    }

    @Test func badNumbersAreRefused() throws {
        let modulus = base64URLDecoded(RFC7515Vectors.rsaModulus)
        let x = base64URLDecoded(RFC7515Vectors.ecX)
        let y = base64URLDecoded(RFC7515Vectors.ecY)
        var offCurve = y
        offCurve[31] ^= 0x01
        let attempts: [(String, () throws(CryptoError) -> PublicKey)] = [
            (
                "even modulus",
                { () throws(CryptoError) in try PublicKey(rsaModulus: modulus.dropLast() + [0x02], exponent: [1, 0, 1])
                }
            ),
            ("exponent 1", { () throws(CryptoError) in try PublicKey(rsaModulus: modulus, exponent: [1]) }),
            ("even exponent", { () throws(CryptoError) in try PublicKey(rsaModulus: modulus, exponent: [1, 0, 0]) }),
            ("empty exponent", { () throws(CryptoError) in try PublicKey(rsaModulus: modulus, exponent: []) }),
            (
                "short modulus",
                { () throws(CryptoError) in try PublicKey(rsaModulus: Array(modulus.prefix(128)) + [1], exponent: [3]) }
            ),
            ("point off the curve", { () throws(CryptoError) in try PublicKey(p256X: x, y: offCurve) }),
            ("short x", { () throws(CryptoError) in try PublicKey(p256X: Array(x.dropFirst()), y: y) }),
            ("long y", { () throws(CryptoError) in try PublicKey(p256X: x, y: [0] + y) }),
            ("not DER", { () throws(CryptoError) in try PublicKey(subjectPublicKeyInfo: [0x30, 0x00]) }),
        ]
        for (name, attempt) in attempts {
            #expect(throws: CryptoError.self, "\(name)") { try attempt() }
        }
    }

    @Test func keysVerifyConcurrently() async throws {
        let key = try PublicKey(p256X: base64URLDecoded(RFC7515Vectors.ecX), y: base64URLDecoded(RFC7515Vectors.ecY))
        let message = Array(RFC7515Vectors.es256SigningInput.utf8)
        let signature = base64URLDecoded(RFC7515Vectors.es256Signature)
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    (0..<20).allSatisfy { _ in
                        key.isValidSignature(signature, for: message, algorithm: .ecdsaP256SHA256)
                    }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results == [Bool](repeating: true, count: 16))
    }
}
