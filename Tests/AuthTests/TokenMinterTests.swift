import Auth
import Crypto
import Testing

/// `TokenMinter`, behind `presignd token`: what it signs, this server's verifier accepts (and only
/// while it is valid, for the configured claim, issuer and audience).
@Suite struct TokenMinterTests {
    static let now = AlgorithmFixture.now

    @Test func aMintedTokenPassesTheVerifierUntilItExpires() throws {
        let fixture = try AlgorithmFixture(.hs256)
        let minter = try TokenMinter(secret: Secret(AlgorithmFixture.hs256Secret))
        let token = minter.token(
            user: "42", issuedAt: Self.now, lifetimeSeconds: 3600, issuer: "https://issuer.example",
            audience: "presignd")
        #expect(principal(fixture.outcome(token)) == Principal(subject: "42", kind: .user))
        #expect(principal(fixture.outcome(token, now: Self.now + 3600 + 59)) != nil, "within the leeway")
        #expect(reason(fixture.outcome(token, now: Self.now + 3600 + 61)) == .expired)
    }

    @Test func theHeaderAndClaimsAreTheOnesTheServerChecks() throws {
        let minter = try TokenMinter(secret: Secret(AlgorithmFixture.hs256Secret))
        let token = minter.token(
            user: "alice@example.com", userClaim: "email", issuedAt: 1_700_000_000, lifetimeSeconds: 60)
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        #expect(segments.count == 3)
        #expect(
            Base64.decodeURL(String(segments[0])).map { String(decoding: $0, as: UTF8.self) }
                == #"{"alg":"HS256","typ":"JWT"}"#)
        #expect(
            Base64.decodeURL(String(segments[1])).map { String(decoding: $0, as: UTF8.self) }
                == #"{"email":"alice@example.com","iat":1700000000,"exp":1700000060}"#)
        // The configured claim is the one read; issuer and audience unset are not checked.
        let fixture = try AlgorithmFixture(.hs256)
        let settings = AlgorithmFixture.settings(issuer: nil, audience: nil, userClaim: "email")
        #expect(
            principal(fixture.outcome(token, settings: settings, now: 1_700_000_010))?.subject == "alice@example.com")
        // A server that checks an issuer refuses a token minted without it.
        #expect(
            reason(
                fixture.outcome(
                    token, settings: AlgorithmFixture.settings(audience: nil, userClaim: "email"), now: 1_700_000_010))
                == .wrongIssuer)
    }

    @Test func anotherSecretsTokenIsRefusedAndAShortSecretIsNotUsed() throws {
        let fixture = try AlgorithmFixture(.hs256)
        let other = try TokenMinter(secret: Secret("another-secret-that-is-also-40-bytes-long"))
        let token = other.token(
            user: "42", issuedAt: Self.now, lifetimeSeconds: 60, issuer: "https://issuer.example", audience: "presignd")
        #expect(reason(fixture.outcome(token)) == .badSignature)
        #expect(throws: AuthError.weakHS256Secret(bytes: 31)) {
            try TokenMinter(secret: Secret(String(repeating: "k", count: 31)))
        }
    }
}
