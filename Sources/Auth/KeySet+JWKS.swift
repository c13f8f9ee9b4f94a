import Crypto
import JSON

extension KeySet {
    /// The signature keys of a JWK Set (RFC 7517, section 5), and notes on the keys skipped.
    ///
    /// Used: `"kty": "RSA"` keys by `n` and `e`, and `"kty": "EC"` keys with `"crv": "P-256"` by
    /// `x` and `y` (RFC 7518, section 6), base64url without padding, each with its `kid` if any.
    /// Skipped, with a note: other key types and curves, RSA keys shorter than 2048 bits, keys whose
    /// `use` is not `sig`, whose `key_ops` lack `verify`, or whose `alg` is not RS256 (RSA) or ES256
    /// (EC). Symmetric (`oct`) keys are always skipped: the HS256 secret comes only from
    /// `auth.hs256Secret`. Refused: a document that is not a JWK Set, a malformed member of a key
    /// that would be used, and a set with no usable key.
    public static func keys(jwks: [UInt8], path: String) throws(AuthError) -> (keys: [VerificationKey], notes: [String])
    {
        let document: JSONValue
        do {
            document = try JSONValue(parsing: jwks, limits: JSONParser.Limits(maxDepth: 8, maxBytes: maxKeyFileBytes))
        } catch {
            throw .invalidJWKS(path: path, reason: "not valid JSON: \(error.description)")
        }
        guard let members = document["keys"]?.arrayValue else {
            throw .invalidJWKS(path: path, reason: #"must be a JSON object with a "keys" array"#)
        }
        var keys: [VerificationKey] = []
        var notes: [String] = []
        for (index, member) in members.enumerated() {
            let which = "key \(index + 1)"
            guard let jwk = member.objectValue else {
                throw .invalidJWKS(path: path, reason: "\(which) is not a JSON object")
            }
            switch try parse(jwk, which: which, path: path) {
            case .key(let key): keys.append(key)
            case .skipped(let why): notes.append("JWKS file \(path): \(which) skipped: \(why)")
            }
        }
        guard !keys.isEmpty else { throw .invalidJWKS(path: path, reason: "no usable RSA or EC P-256 signature key") }
        return (keys, notes)
    }

    /// What one JWK gives: a key, or the reason it is left out.
    private enum ParsedJWK {
        /// A usable key.
        case key(VerificationKey)
        /// A key of a kind this server does not use.
        case skipped(String)
    }

    /// One JWK as a key, a skip, or an error naming `which` in `path`.
    private static func parse(_ jwk: JSONObject, which: String, path: String) throws(AuthError) -> ParsedJWK {
        func string(_ name: String) throws(AuthError) -> String? {
            guard let value = jwk[name] else { return nil }
            guard let text = value.stringValue else {
                throw .invalidJWKS(path: path, reason: "\(which): \(name) must be a string")
            }
            return text
        }
        func bytes(_ name: String) throws(AuthError) -> [UInt8] {
            guard let text = try string(name) else {
                throw .invalidJWKS(path: path, reason: "\(which): \(name) is required")
            }
            guard let decoded = Base64.decodeURL(text), !decoded.isEmpty else {
                throw .invalidJWKS(path: path, reason: "\(which): \(name) is not base64url without padding")
            }
            return decoded
        }
        guard let type = try string("kty") else { throw .invalidJWKS(path: path, reason: "\(which): kty is required") }
        let kid = try string("kid")
        if let use = try string("use"), use != "sig" { return .skipped("use is not sig") }
        if let operations = jwk["key_ops"] {
            guard let list = operations.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
                throw .invalidJWKS(path: path, reason: "\(which): key_ops must be an array of strings")
            }
            if !list.contains(.string("verify")) { return .skipped("key_ops lacks verify") }
        }
        let alg = try string("alg")
        let make: () throws(CryptoError) -> PublicKey
        switch type {
        case "RSA":
            if let alg, alg != "RS256" { return .skipped("alg \(plain(alg)) is not RS256") }
            let modulus = try bytes("n")
            let exponent = try bytes("e")
            make = { () throws(CryptoError) in try PublicKey(rsaModulus: modulus, exponent: exponent) }
        case "EC":
            guard let curve = try string("crv") else {
                throw .invalidJWKS(path: path, reason: "\(which): crv is required")
            }
            guard curve == "P-256" else { return .skipped("curve \(plain(curve)) is not P-256") }
            if let alg, alg != "ES256" { return .skipped("alg \(plain(alg)) is not ES256") }
            let x = try bytes("x")
            let y = try bytes("y")
            make = { () throws(CryptoError) in try PublicKey(p256X: x, y: y) }
        case "oct":
            return .skipped("symmetric keys come only from auth.hs256Secret")
        default:
            return .skipped("key type \(plain(type)) is not RSA or EC")
        }
        let key: PublicKey
        do {
            key = try make()
        } catch {
            if case .unsupportedKey(let reason) = error { return .skipped(reason) }
            throw .invalidJWKS(path: path, reason: "\(which): \(describe(error))")
        }
        let source = "\(path) \(which)"
        return .key(VerificationKey(kid: kid, material: .publicKey(key), source: source))
    }

    /// `text` when it is a short plain name (safe in a log line), else `(other)`.
    static func plain(_ text: String) -> String {
        let allowed =
            !text.isEmpty && text.utf8.count <= 32
            && text.utf8.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7a) || $0 == 0x2d || $0 == 0x2b
                    || $0 == 0x5f
            }
        return allowed ? text : "(other)"
    }
}
