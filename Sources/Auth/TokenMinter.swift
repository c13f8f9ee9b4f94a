import Crypto
import JSON

/// Signs HS256 bearer tokens that this server's `TokenVerifier` accepts: the development command
/// `presignd token --user 42 --ttl 1h` (docs/operations.md, "Tokens for development").
///
/// Pure: the time is passed in. The header is `{"alg":"HS256","typ":"JWT"}`; the payload carries the
/// user id in the configured claim, `iat`, `exp`, and `iss` / `aud` when the server checks them, so
/// the token passes every check the configuration makes (RFC 7519; HS256 per RFC 7518, section 3.2).
public struct TokenMinter: Sendable {
    /// The signing key.
    private let key: HMACKey

    /// The longest lifetime a development token may have: 30 days.
    public static let maxLifetimeSeconds: Int64 = 30 * 86_400

    /// A minter for `secret`, which must be at least 32 bytes (as the verifier requires).
    public init(secret: Secret) throws(AuthError) {
        guard secret.count >= 32 else { throw .weakHS256Secret(bytes: secret.count) }
        key = HMACKey(key: secret)
    }

    /// A compact JWS: `base64url(header).base64url(payload).base64url(HMAC-SHA256)`.
    ///
    /// `userClaim` names the claim holding `user` (`auth.jwtUserClaim`, `sub` by default); the token
    /// is valid from `issuedAt` for `lifetimeSeconds` (1 ... `maxLifetimeSeconds`).
    public func token(
        user: String, userClaim: String = "sub", issuedAt: Int64, lifetimeSeconds: Int64, issuer: String? = nil,
        audience: String? = nil
    ) -> String {
        precondition(
            lifetimeSeconds >= 1 && lifetimeSeconds <= Self.maxLifetimeSeconds, "a token lives 1 s to 30 days")
        var payload = JSONWriter()
        payload.beginObject()
        payload.key(userClaim)
        payload.string(user)
        if userClaim != "iat" {
            payload.key("iat")
            payload.int(issuedAt)
        }
        if userClaim != "exp" {
            payload.key("exp")
            payload.int(issuedAt + lifetimeSeconds)
        }
        if let issuer, userClaim != "iss" {
            payload.key("iss")
            payload.string(issuer)
        }
        if let audience, userClaim != "aud" {
            payload.key("aud")
            payload.string(audience)
        }
        payload.endObject()
        let signingInput =
            Base64.encodeURL(#"{"alg":"HS256","typ":"JWT"}"#) + "." + Base64.encodeURL(payload.bytes)
        return signingInput + "." + Base64.encodeURL(key.authenticate(signingInput).bytes)
    }
}
