import Auth
import Crypto
import Testing

/// The three example JWSs of RFC 7515, appendices A.1 (HS256), A.2 (RS256) and A.3 (ES256), through
/// the authenticator. Their claims are `{"iss":"joe","exp":1300819380,"http://example.com/is_root":true}`
/// with no `sub`, so the user claim is set to `iss`; "now" is a few minutes before `exp`.
struct RFC7515Tests {
    /// The claims segment shared by the three examples.
    static let payload =
        "eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
    /// A.1.1: the HMAC key `k`.
    static let hmacKey = "AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow"
    /// A.1.1: the complete HS256 JWS (its header is `{"typ":"JWT",\r\n "alg":"HS256"}`).
    static let hs256Token =
        "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.\(payload).dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    /// A.2.1: the RSA key's `n`.
    static let rsaModulus =
        "ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ"
    /// A.2.1: the complete RS256 JWS.
    static let rs256Token =
        "eyJhbGciOiJSUzI1NiJ9.\(payload).cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm4Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr7t1dnZcAcQjbKBYNX4BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K0GarZRmB_eSN9383LcOLn6_dO--xi12jzDwusC-eOkHWEsqtFZESc6BfI7noOPqvhJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_IoypGlUPQGe77Rw"
    /// A.3.1: the complete ES256 JWS.
    static let es256Token =
        "eyJhbGciOiJFUzI1NiJ9.\(payload).DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"
    /// A.3.1: the JWKS of the P-256 key (with the `kid` of RFC 7515, appendix A.6).
    static let ecJWKS = """
        {"keys":[{"kty":"EC","crv":"P-256","kid":"e9bc097a-ce51-4036-9562-d2ade882db0d",
        "x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}]}
        """
    /// Four minutes before the examples' `exp`.
    static let now: Int64 = 1_300_819_140

    /// The three examples verify, and each is refused after `exp` + leeway.
    @Test func theExamplesVerify() throws {
        let hmac = VerificationKey(
            kid: nil, material: .hmac(HMACKey(key: try #require(Base64.decodeURL(Self.hmacKey)))), source: "A.1")
        let rsaJWKS = #"{"keys":[{"kty":"RSA","n":"\#(Self.rsaModulus)","e":"AQAB"}]}"#
        let keys = try KeySet(
            keys: [hmac] + KeySet.keys(jwks: Array(rsaJWKS.utf8), path: "A.2").keys
                + KeySet.keys(jwks: Array(Self.ecJWKS.utf8), path: "A.3").keys)
        let settings = AuthSettings(algorithms: [.hs256, .rs256, .es256], leewaySeconds: 0, userClaim: "iss")
        let authenticator = Authenticator(configuration: settings, keys: keys)
        for token in [Self.hs256Token, Self.rs256Token, Self.es256Token] {
            #expect(
                principal(authenticator.verifyToken(token, now: Self.now)) == Principal(subject: "joe", kind: .user))
            #expect(reason(authenticator.verifyToken(token, now: 1_300_819_380)) == .expired)
        }
        // The same token with one signature byte changed is refused.
        var forged = Array(Self.es256Token.utf8)
        forged[forged.count - 5] = forged[forged.count - 5] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(
            reason(authenticator.verifyToken(String(decoding: forged, as: UTF8.self), now: Self.now)) == .badSignature)
    }
}
