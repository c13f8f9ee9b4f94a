import Crypto
import JSON

/// Verifies one bearer JWT (RFC 7519) in JWS compact serialization (RFC 7515, section 7.1) and
/// returns the user id it carries.
///
/// Order, so that nothing is decoded beyond what is needed to refuse: size; three segments; the
/// header (strict base64url, strict JSON object, `alg` allowed, no `crit`, `typ` acceptable,
/// `kid` a string); the key; the signature over `header.payload`; only then the payload (strict
/// base64url, strict JSON object) and its claims.
struct TokenVerifier: Sendable {
    /// What is accepted.
    let settings: AuthSettings
    /// The keys.
    let keys: KeySet

    /// JSON limits of a header: a handful of flat members.
    static let headerLimits = JSONParser.Limits(maxDepth: 4, maxBytes: 1 << 16)
    /// JSON limits of a payload: claims may nest a little (e.g. `realm_access.roles`).
    static let payloadLimits = JSONParser.Limits(maxDepth: 16, maxBytes: 1 << 20)
    /// `typ` values accepted, compared case-insensitively: RFC 7519, section 5.1 (`JWT`) and
    /// RFC 9068, section 2.1 (`at+jwt`), each also with the `application/` prefix (RFC 7515, section 4.1.9).
    static let acceptedTypes: Set<String> = ["jwt", "application/jwt", "at+jwt", "application/at+jwt"]

    /// The subject of `token` at `now` (seconds since 1970), or why the token is refused.
    func verify(_ token: [UInt8], now: Int64) -> Result<String, AuthFailure> {
        guard token.count <= settings.maxTokenBytes else {
            return .failure(AuthFailure(.tokenTooLarge(bytes: token.count, limit: settings.maxTokenBytes)))
        }
        var dots: [Int] = []
        for (index, byte) in token.enumerated() where byte == UInt8(ascii: ".") {
            dots.append(index)
            if dots.count > 2 { break }
        }
        guard dots.count == 2 else { return malformed("not three segments") }
        let headerSegment = token[..<dots[0]]
        let payloadSegment = token[(dots[0] + 1)..<dots[1]]
        let signatureSegment = token[(dots[1] + 1)...]

        guard let headerBytes = Base64.decodeURL(headerSegment) else { return malformed("header is not base64url") }
        guard let header = try? JSONValue(parsing: headerBytes, limits: Self.headerLimits).objectValue else {
            return malformed("header is not a JSON object")
        }
        let algorithm: JWTAlgorithm
        switch checkHeader(header) {
        case .success(let allowed): algorithm = allowed
        case .failure(let failure): return .failure(failure)
        }
        let kid = header["kid"]?.stringValue
        let key: VerificationKey
        switch keys.key(for: algorithm, kid: kid) {
        case .success(let found): key = found
        case .failure(let failure): return .failure(failure)
        }
        guard let signature = Base64.decodeURL(signatureSegment) else {
            return malformed("signature is not base64url")
        }
        let verified = token.withUnsafeBytes { bytes in
            key.verifies(signature, of: UnsafeRawBufferPointer(rebasing: bytes[..<dots[1]]), algorithm: algorithm)
        }
        guard verified else { return .failure(AuthFailure(.badSignature)) }

        guard let payloadBytes = Base64.decodeURL(payloadSegment) else { return malformed("payload is not base64url") }
        guard let claims = try? JSONValue(parsing: payloadBytes, limits: Self.payloadLimits).objectValue else {
            return malformed("payload is not a JSON object")
        }
        return check(claims, now: now)
    }

    /// The header's algorithm when the header is acceptable.
    private func checkHeader(_ header: JSONObject) -> Result<JWTAlgorithm, AuthFailure> {
        guard let name = header["alg"]?.stringValue else {
            return .failure(AuthFailure(.malformedToken(detail: "header has no alg string")))
        }
        guard let algorithm = JWTAlgorithm(rawValue: name), settings.algorithms.contains(algorithm) else {
            return .failure(AuthFailure(.algorithmNotAllowed(alg: KeySet.plain(name))))
        }
        if header.contains("crit") {
            return .failure(AuthFailure(.unsupportedHeader(detail: "crit is not supported")))
        }
        if let type = header["typ"] {
            guard let text = type.stringValue, Self.acceptedTypes.contains(text.lowercased()) else {
                return .failure(AuthFailure(.unsupportedHeader(detail: "typ is not JWT")))
            }
        }
        if let kid = header["kid"], kid.stringValue == nil {
            return .failure(AuthFailure(.malformedToken(detail: "kid is not a string")))
        }
        return .success(algorithm)
    }

    /// A malformed-token failure with the fixed `detail`.
    private func malformed(_ detail: String) -> Result<String, AuthFailure> {
        .failure(AuthFailure(.malformedToken(detail: detail)))
    }
}
