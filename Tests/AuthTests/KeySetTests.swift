import Auth
import Crypto
import Testing

/// Loading keys (PEM files, certificates, JWKS, the HS256 secret) and choosing one by `kid`.
struct KeySetTests {
    /// A JWK of `key` with `kid`, as JSON text.
    static func jwk(_ key: PublicKey, kid: String?, extra: String = "") -> String {
        var members: [String] = []
        if let numbers = key.rsaNumbers {
            members = [
                "\"kty\":\"RSA\"", "\"n\":\"\(Base64.encodeURL(numbers.modulus))\"",
                "\"e\":\"\(Base64.encodeURL(numbers.exponent))\"",
            ]
        } else if let point = key.p256Point {
            members = [
                "\"kty\":\"EC\"", "\"crv\":\"P-256\"", "\"x\":\"\(Base64.encodeURL(point.x))\"",
                "\"y\":\"\(Base64.encodeURL(point.y))\"",
            ]
        }
        if let kid { members.append("\"kid\":\"\(kid)\"") }
        if !extra.isEmpty { members.append(extra) }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// A JWK Set of `keys`.
    static func jwks(_ keys: [String]) -> [UInt8] {
        Array(("{\"keys\":[" + keys.joined(separator: ",") + "]}").utf8)
    }

    /// Two RSA keys and one EC key, each with a `kid`: the token's `kid` picks the key.
    @Test func kidChoosesTheKey() throws {
        let material = try ThrowawayKeys.shared.get()
        let document = Self.jwks([
            Self.jwk(material.rsa1.publicKey, kid: "r1"), Self.jwk(material.rsa2.publicKey, kid: "r2"),
            Self.jwk(material.ec1.publicKey, kid: "e1"),
        ])
        let loaded = try KeySet.keys(jwks: document, path: "jwks.json")
        #expect(loaded.notes.isEmpty)
        let keys = try KeySet(keys: loaded.keys)
        #expect(keys.keys(for: .rs256).map(\.kid) == ["r1", "r2"])
        #expect(keys.keys(for: .es256).map(\.kid) == ["e1"])
        let authenticator = Authenticator(configuration: AlgorithmFixture.settings(), keys: keys)
        let claims = AlgorithmFixture.claims()
        func check(_ header: String, _ signer: TestSigner, _ expected: AuthFailure.Reason?) throws {
            let token = try TokenFactory.token(header: header, payload: claims, signer: signer)
            #expect(reason(authenticator.verifyToken(token, now: AlgorithmFixture.now)) == expected, "\(header)")
        }
        try check(#"{"alg":"RS256","kid":"r1"}"#, .rs256(material.rsa1), nil)
        try check(#"{"alg":"RS256","kid":"r2"}"#, .rs256(material.rsa2), nil)
        try check(#"{"alg":"ES256","kid":"e1"}"#, .es256(material.ec1), nil)
        try check(#"{"alg":"ES256"}"#, .es256(material.ec1), nil)  // no kid, one EC key
        try check(#"{"alg":"RS256","kid":"r1"}"#, .rs256(material.rsa2), .badSignature)  // kid of another key
        try check(#"{"alg":"RS256"}"#, .rs256(material.rsa1), .ambiguousKey(candidates: 2))
        try check(#"{"alg":"RS256","kid":"zz"}"#, .rs256(material.rsa1), .unknownKeyID)
        try check(#"{"alg":"RS256","kid":""}"#, .rs256(material.rsa1), .unknownKeyID)
        try check(#"{"alg":"RS256","kid":"R1"}"#, .rs256(material.rsa1), .unknownKeyID)  // kid is case-sensitive
        try check(#"{"alg":"ES256","kid":"r1"}"#, .es256(material.ec1), .unknownKeyID)  // an RSA key's kid
        try check(#"{"alg":"RS256","kid":"e1"}"#, .rs256(material.rsa1), .unknownKeyID)  // an EC key's kid
        try check(#"{"alg":"HS256","kid":"r1"}"#, .hmac(material.rsa1PublicPEM), .noKeyForAlgorithm(.hs256))
    }

    /// A key without `kid` (a PEM file) stands in for an unknown `kid` only when it is the only one.
    @Test func aKeyWithoutKidIsTheFallback() throws {
        let material = try ThrowawayKeys.shared.get()
        let named = try KeySet.keys(jwks: Self.jwks([Self.jwk(material.rsa1.publicKey, kid: "r1")]), path: "jwks.json")
        let unnamed = try KeySet.keys(pem: material.rsa1CertificatePEM + material.rsa2PublicPEM, path: "bundle.pem")
        #expect(unnamed.map(\.source) == ["bundle.pem block 1", "bundle.pem block 2"])
        let claims = AlgorithmFixture.claims()
        let withRSA2 = try KeySet(keys: named.keys + [unnamed[1]])
        let authenticator = Authenticator(configuration: AlgorithmFixture.settings(), keys: withRSA2)
        let byRSA2 = try TokenFactory.token(
            header: #"{"alg":"RS256","kid":"other"}"#, payload: claims, signer: .rs256(material.rsa2))
        #expect(principal(authenticator.verifyToken(byRSA2, now: AlgorithmFixture.now)) != nil)
        let byRSA1 = try TokenFactory.token(
            header: #"{"alg":"RS256","kid":"other"}"#, payload: claims, signer: .rs256(material.rsa1))
        #expect(reason(authenticator.verifyToken(byRSA1, now: AlgorithmFixture.now)) == .badSignature)
        // Two keys without kid: an unknown kid has no stand-in.
        let twoUnnamed = Authenticator(
            configuration: AlgorithmFixture.settings(), keys: try KeySet(keys: named.keys + unnamed))
        #expect(reason(twoUnnamed.verifyToken(byRSA2, now: AlgorithmFixture.now)) == .unknownKeyID)
    }

    /// Files on disk: PEM public keys, a certificate, a JWKS and the secret, through the default reader.
    @Test func loadReadsEveryKindOfFile() throws {
        let material = try ThrowawayKeys.shared.get()
        let directory = try TemporaryDirectory()
        let pem = try directory.write("rsa1.pub.pem", material.rsa1PublicPEM)
        let certificate = try directory.write("rsa1.crt", material.rsa1CertificatePEM)
        let jwks = try directory.write(
            "jwks.json",
            Self.jwks([
                Self.jwk(material.ec1.publicKey, kid: "e1"), #"{"kty":"oct","k":"c2VjcmV0","kid":"s"}"#,
                Self.jwk(material.rsa2.publicKey, kid: "r2", extra: #""use":"enc""#),
                Self.jwk(material.rsa2.publicKey, kid: "r2-384", extra: #""alg":"RS384""#),
                Self.jwk(material.rsa2.publicKey, kid: "r2-ops", extra: #""key_ops":["encrypt"]"#),
                #"{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#,
                #"{"kty":"EC","crv":"P-384","x":"AA","y":"AA"}"#,
                Self.jwk(material.rsa2.publicKey, kid: "r2", extra: #""alg":"RS256","use":"sig","key_ops":["verify"]"#),
            ]))
        let keys = try KeySet.load(
            pemFiles: [pem, certificate], jwksFile: jwks, hs256Secret: Secret(AlgorithmFixture.hs256Secret))
        #expect(keys.keys.map(\.algorithm) == [.rs256, .rs256, .es256, .rs256, .hs256])
        #expect(keys.keys.map(\.kid) == [nil, nil, "e1", "r2", nil])
        #expect(keys.keys.last?.source == "auth.hs256Secret")
        #expect(keys.notes.count == 6)
        #expect(keys.notes.allSatisfy { $0.hasPrefix("JWKS file \(jwks): key ") })
        #expect(keys.notes.contains { $0.contains("key 2 skipped: symmetric keys come only from auth.hs256Secret") })
        #expect(keys.notes.contains { $0.contains("key 4 skipped: alg RS384 is not RS256") })
        let none = try KeySet.load(pemFiles: [], jwksFile: "", hs256Secret: nil)
        #expect(none.keys.isEmpty)
    }

    @Test func unreadableAndUnusableFilesAreErrorsThatNameTheFile() throws {
        let material = try ThrowawayKeys.shared.get()
        let directory = try TemporaryDirectory()
        let missing = directory.path + "/missing.pem"
        #expect(throws: AuthError.self) { try KeySet.load(pemFiles: [missing], jwksFile: nil, hs256Secret: nil) }
        do {
            _ = try KeySet.load(pemFiles: [missing], jwksFile: nil, hs256Secret: nil)
        } catch {
            #expect(error == .cannotReadKeyFile(path: missing, reason: "No such file or directory"))
        }
        let privateKey = try directory.write("private.pem", material.rsa1PrivatePEM)
        let short = try directory.write("short.pem", material.rsa1024PublicPEM)
        let secretLine = Array("-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n".utf8)
        let broken = try directory.write("broken.pem", secretLine + Array("-----END PUBLIC KEY-----\n".utf8))
        for path in [privateKey, short, broken] {
            do {
                _ = try KeySet.load(pemFiles: [path], jwksFile: nil, hs256Secret: nil)
                Issue.record("\(path) was accepted")
            } catch {
                guard case .invalidPEMFile(let named, let why) = error else {
                    Issue.record("\(error)")
                    continue
                }
                #expect(named == path)
                #expect(!why.contains("MII") && !error.description.contains("MII"))
            }
        }
        #expect(throws: AuthError.weakHS256Secret(bytes: 31)) {
            try KeySet.load(pemFiles: [], jwksFile: nil, hs256Secret: Secret(String(repeating: "s", count: 31)))
        }
        // A reader that fails is reported with the path.
        #expect(throws: AuthError.cannotReadKeyFile(path: "/x", reason: "boom")) {
            try KeySet.load(pemFiles: ["/x"], jwksFile: nil, hs256Secret: nil) { _ in throw TestReadError() }
        }
    }

    @Test func badJWKSDocumentsAreRefused() throws {
        let material = try ThrowawayKeys.shared.get()
        let good = Self.jwk(material.ec1.publicKey, kid: "e1")
        let point = try #require(material.ec1.publicKey.p256Point)
        var offCurve = point.y
        offCurve[31] ^= 1
        let documents: [(String, String)] = [
            ("not JSON", "{"), ("no keys", "{}"), ("keys not an array", #"{"keys":{}}"#), ("array", "[]"),
            ("duplicate member", #"{"keys":[],"keys":[]}"#), ("key not an object", #"{"keys":[1]}"#),
            ("no kty", #"{"keys":[{"n":"AQAB"}]}"#), ("kty number", #"{"keys":[{"kty":1}]}"#),
            ("kid number", #"{"keys":[{"kty":"EC","crv":"P-256","kid":5}]}"#),
            (
                "padded x",
                "{\"keys\":[{\"kty\":\"EC\",\"crv\":\"P-256\",\"x\":\"\(Base64.encodeURL(point.x))=\",\"y\":\"\(Base64.encodeURL(point.y))\"}]}"
            ),
            (
                "off curve",
                "{\"keys\":[{\"kty\":\"EC\",\"crv\":\"P-256\",\"x\":\"\(Base64.encodeURL(point.x))\",\"y\":\"\(Base64.encodeURL(offCurve))\"}]}"
            ),
            ("missing e", #"{"keys":[{"kty":"RSA","n":"AQAB"}]}"#),
            ("missing crv", #"{"keys":[{"kty":"EC","x":"AA","y":"AA"}]}"#),
            ("key_ops not strings", "{\"keys\":[\(good.dropLast()),\"key_ops\":[1]}]}"),
            ("only skipped keys", #"{"keys":[{"kty":"oct","k":"AA"}]}"#), ("empty", #"{"keys":[]}"#),
        ]
        for (name, text) in documents {
            #expect(throws: AuthError.self, "\(name)") { try KeySet.keys(jwks: Array(text.utf8), path: "jwks.json") }
        }
        // An RSA-1024 key in a JWKS is skipped (unsupported), not an error, when others remain.
        #expect(material.rsa1024Modulus.count == 128)
        let short =
            "{\"kty\":\"RSA\",\"kid\":\"old\",\"n\":\"\(Base64.encodeURL(material.rsa1024Modulus))\",\"e\":\"AQAB\"}"
        let mixed = try KeySet.keys(jwks: Self.jwks([short, good]), path: "jwks.json")
        #expect(mixed.keys.map(\.kid) == ["e1"])
        #expect(mixed.notes.count == 1)
    }

    @Test func duplicateKidsOfOneAlgorithmAreRefused() throws {
        let material = try ThrowawayKeys.shared.get()
        let document = Self.jwks([
            Self.jwk(material.rsa1.publicKey, kid: "k"), Self.jwk(material.rsa2.publicKey, kid: "k"),
        ])
        let loaded = try KeySet.keys(jwks: document, path: "jwks.json")
        #expect(throws: AuthError.duplicateKeyID(kid: "k", sources: ["jwks.json key 1", "jwks.json key 2"])) {
            try KeySet(keys: loaded.keys)
        }
        // The same kid on an RSA and an EC key is fine: the algorithm tells them apart.
        let mixed = Self.jwks([Self.jwk(material.rsa1.publicKey, kid: "k"), Self.jwk(material.ec1.publicKey, kid: "k")])
        #expect(try KeySet(keys: KeySet.keys(jwks: mixed, path: "jwks.json").keys).keys.count == 2)
    }
}

/// A reader failure for tests.
struct TestReadError: Error, CustomStringConvertible {
    var description: String { "boom" }
}
