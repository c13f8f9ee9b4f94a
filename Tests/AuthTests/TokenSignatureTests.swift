import Auth
import Crypto
import Testing

/// Signatures: forgeries, `alg: none`, algorithm names, algorithm confusion, keys offered by the token.
struct TokenSignatureTests {
    static let algorithms = JWTAlgorithm.allCases

    @Test(arguments: algorithms)
    func badSignatures(_ algorithm: JWTAlgorithm) throws {
        let fixture = try AlgorithmFixture(algorithm)
        let token = try fixture.token()
        let parts = token.split(separator: ".").map(String.init)
        let signature = try #require(Base64.decodeURL(parts[2]))
        for position in [0, signature.count / 2, signature.count - 1] {
            var flipped = signature
            flipped[position] ^= 0x01
            let forged = parts[0] + "." + parts[1] + "." + Base64.encodeURL(flipped)
            #expect(reason(fixture.outcome(forged)) == .badSignature, "byte \(position)")
        }
        // Another key of the same type; the signature of other claims; an empty or truncated signature.
        let byOtherKey = try TokenFactory.token(
            header: fixture.header, payload: AlgorithmFixture.claims(), signer: fixture.otherSigner)
        #expect(reason(fixture.outcome(byOtherKey)) == .badSignature)
        let otherClaims = try fixture.token(AlgorithmFixture.claims(["sub": "\"admin\""]))
        let spliced = parts[0] + "." + otherClaims.split(separator: ".")[1] + "." + parts[2]
        #expect(reason(fixture.outcome(spliced)) == .badSignature)
        #expect(reason(fixture.outcome(parts[0] + "." + parts[1] + ".")) == .badSignature)
        let truncated = parts[0] + "." + parts[1] + "." + Base64.encodeURL(signature.dropLast())
        #expect(reason(fixture.outcome(truncated)) == .badSignature)
        let extended = parts[0] + "." + parts[1] + "." + Base64.encodeURL(signature + [0])
        #expect(reason(fixture.outcome(extended)) == .badSignature)
    }

    /// `alg: none` (RFC 7518, section 3.6) is never accepted, whatever follows the second dot.
    @Test(arguments: algorithms)
    func algNoneIsRefused(_ algorithm: JWTAlgorithm) throws {
        let fixture = try AlgorithmFixture(algorithm)
        let realSignature = String(try fixture.token().split(separator: ".")[2])
        let payload = Base64.encodeURL(AlgorithmFixture.claims())
        for name in ["none", "None", "NONE", "nOnE"] {
            let header = Base64.encodeURL("{\"alg\":\"\(name)\",\"typ\":\"JWT\"}")
            for tail in [".", "." + realSignature, "." + Base64.encodeURL("x")] {
                #expect(reason(fixture.outcome(header + "." + payload + tail)) == .algorithmNotAllowed(alg: name))
            }
            #expect(reason(fixture.outcome(header + "." + payload)) == .malformedToken(detail: "not three segments"))
        }
    }

    /// `alg` is case-sensitive (RFC 7515, section 4.1.1) and must be configured.
    @Test(arguments: algorithms)
    func algorithmNames(_ algorithm: JWTAlgorithm) throws {
        let fixture = try AlgorithmFixture(algorithm)
        for name in [
            algorithm.rawValue.lowercased(), algorithm.rawValue + " ", "HS512", "RS384", "PS256", "ES256K", "EdDSA", "",
        ] {
            let header = "{\"alg\":\"\(name)\"}"
            let token = try TokenFactory.token(
                header: header, payload: AlgorithmFixture.claims(), signer: fixture.signer)
            #expect(
                reason(fixture.outcome(token))
                    == .algorithmNotAllowed(alg: name.isEmpty ? "(other)" : KeyNames.plain(name)))
        }
        let others = Set(JWTAlgorithm.allCases).subtracting([algorithm])
        let token = try fixture.token()
        #expect(
            reason(fixture.outcome(token, settings: AuthSettings(algorithms: others)))
                == .algorithmNotAllowed(alg: algorithm.rawValue))
        #expect(principal(fixture.outcome(token, settings: AuthSettings(algorithms: [algorithm]))) != nil)
        // A long or odd alg value is not echoed into the log reason.
        let odd = try TokenFactory.token(
            header: "{\"alg\":\"\(String(repeating: "A", count: 40))\"}", payload: AlgorithmFixture.claims(),
            signer: fixture.signer)
        #expect(reason(fixture.outcome(odd)) == .algorithmNotAllowed(alg: "(other)"))
    }

    /// The classic confusion attack: an HS256 token whose HMAC key is the server's RSA public key
    /// (its PEM bytes, or its DER). Public keys never become HMAC keys, so it fails however configured.
    @Test func algorithmConfusionFails() throws {
        let material = try ThrowawayKeys.shared.get()
        let rsaKeys = try KeySet.keys(pem: material.rsa1PublicPEM, path: "rsa1.pub.pem")
        let secret = VerificationKey(
            kid: nil, material: .hmac(HMACKey(key: Array(AlgorithmFixture.hs256Secret.utf8))), source: "secret")
        let claims = AlgorithmFixture.claims()
        let secrets: [[UInt8]] = [
            material.rsa1PublicPEM, material.rsa1PEMWithoutTrailingNewline,
            material.rsa1.publicKey.subjectPublicKeyInfo,
        ]
        for hmacKey in secrets {
            let forged = try TokenFactory.token(
                header: "{\"alg\":\"HS256\",\"typ\":\"JWT\"}", payload: claims, signer: .hmac(hmacKey))
            let allowAll = AlgorithmFixture.settings()
            // RSA key and an HS256 secret configured, HS256 allowed: the HMAC does not match the real secret.
            let withSecret = Authenticator(configuration: allowAll, keys: try KeySet(keys: rsaKeys + [secret]))
            #expect(reason(withSecret.verifyToken(forged, now: AlgorithmFixture.now)) == .badSignature)
            // RSA key only, HS256 allowed: no HMAC key exists at all.
            let rsaOnly = Authenticator(configuration: allowAll, keys: try KeySet(keys: rsaKeys))
            #expect(reason(rsaOnly.verifyToken(forged, now: AlgorithmFixture.now)) == .noKeyForAlgorithm(.hs256))
            // The default algorithms (RS256, ES256): HS256 is not even considered.
            let defaults = Authenticator(configuration: AuthSettings(), keys: try KeySet(keys: rsaKeys))
            #expect(
                reason(defaults.verifyToken(forged, now: AlgorithmFixture.now)) == .algorithmNotAllowed(alg: "HS256"))
        }
        // The reverse: an RS256 token checked against an EC key set finds no RSA key.
        let ecKeys = try KeySet(keys: KeySet.keys(pem: material.ec1PublicPEM, path: "ec1.pub.pem"))
        let rs256 = try TokenFactory.token(
            header: "{\"alg\":\"RS256\"}", payload: claims, signer: .rs256(material.rsa1))
        let ecOnly = Authenticator(configuration: AlgorithmFixture.settings(), keys: ecKeys)
        #expect(reason(ecOnly.verifyToken(rs256, now: AlgorithmFixture.now)) == .noKeyForAlgorithm(.rs256))
        // An ES256 header over an RS256 signature (and the reverse) fails on the key type.
        let relabelled = try TokenFactory.token(
            header: "{\"alg\":\"ES256\"}", payload: claims, signer: .rs256(material.rsa1))
        #expect(reason(ecOnly.verifyToken(relabelled, now: AlgorithmFixture.now)) == .badSignature)
    }

    /// A token that carries its own key (`jwk`, RFC 7515, section 4.1.3) or points at one (`jku`,
    /// `x5u`) is verified with the configured keys only.
    @Test func keysOfferedByTheTokenAreIgnored() throws {
        let material = try ThrowawayKeys.shared.get()
        let attackerPoint = try #require(material.ec2.publicKey.p256Point)
        let jwk =
            "{\"kty\":\"EC\",\"crv\":\"P-256\",\"x\":\"\(Base64.encodeURL(attackerPoint.x))\",\"y\":\"\(Base64.encodeURL(attackerPoint.y))\"}"
        let keys = try KeySet(keys: KeySet.keys(pem: material.ec1PublicPEM, path: "ec1.pub.pem"))
        let authenticator = Authenticator(configuration: AlgorithmFixture.settings(), keys: keys)
        for header in [
            "{\"alg\":\"ES256\",\"jwk\":\(jwk)}", "{\"alg\":\"ES256\",\"jku\":\"https://attacker.example/jwks\"}",
            "{\"alg\":\"ES256\",\"x5u\":\"https://attacker.example/cert\"}",
        ] {
            let token = try TokenFactory.token(
                header: header, payload: AlgorithmFixture.claims(), signer: .es256(material.ec2))
            #expect(reason(authenticator.verifyToken(token, now: AlgorithmFixture.now)) == .badSignature)
        }
    }
}

extension ThrowawayKeys {
    /// The RSA public key PEM without its final newline (another spelling an attacker might try).
    var rsa1PEMWithoutTrailingNewline: [UInt8] { Array(rsa1PublicPEM.dropLast()) }
}

/// How the authenticator shows an `alg` value in a failure reason: short plain names as they are.
enum KeyNames {
    /// `text` if it is at most 32 characters of letters, digits, `-`, `+` and `_`, else `(other)`.
    static func plain(_ text: String) -> String {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-+_")
        return text.count <= 32 && !text.isEmpty && text.allSatisfy { allowed.contains($0) } ? text : "(other)"
    }
}
