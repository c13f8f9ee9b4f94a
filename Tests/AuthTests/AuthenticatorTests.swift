import Crypto
import Synchronization
import Testing

@testable import Auth

/// Credentials as headers: the Bearer scheme, API keys, and what a failure shows the client.
struct AuthenticatorTests {
    static let keyA = "ak_backend_a_4f9c2e7d1b8a6053e9f1c2d4b7a8e6f0"
    static let keyB = "ak_backend_b_0e1d2c3b4a5968778695a4b3c2d1e0f9"
    static let keyC = "ak_backend_c_9a8b7c6d5e4f30211203f4e5d6c7b8a9"

    /// Three configured API keys, by their SHA-256.
    static var apiKeys: [APIKey] {
        [("backend-a", keyA), ("backend-b", keyB), ("backend-c", keyC)].map {
            APIKey(id: $0.0, sha256: SHA256.hash($0.1))
        }
    }

    @Test func apiKeysAreAcceptedFromEitherHeader() throws {
        let fixture = try AlgorithmFixture(.es256)
        let authenticator = fixture.authenticator(AlgorithmFixture.settings(apiKeys: Self.apiKeys))
        let now = AlgorithmFixture.now
        #expect(
            principal(authenticator.authenticate(authorization: nil, apiKey: Self.keyB, now: now))
                == Principal(subject: "backend-b", kind: .apiKey))
        #expect(
            principal(authenticator.authenticate(authorization: "Bearer " + Self.keyC, apiKey: nil, now: now))
                == Principal(subject: "backend-c", kind: .apiKey))
        #expect(
            principal(authenticator.authenticate(authorization: "Bearer " + Self.keyA, apiKey: nil, now: now))?.subject
                == "backend-a")
        // Tokens still work beside API keys.
        let token = try fixture.token()
        #expect(
            principal(authenticator.authenticate(authorization: "Bearer " + token, apiKey: nil, now: now))?.kind
                == .user)
    }

    @Test func wrongAndNearMissKeysAreRefused() throws {
        let authenticator = Authenticator(configuration: AlgorithmFixture.settings(apiKeys: Self.apiKeys), keys: .empty)
        let nearMisses = [
            "ak_backend_d_4f9c2e7d1b8a6053e9f1c2d4b7a8e6f0", String(Self.keyB.dropLast()) + "8",
            String(Self.keyB.dropLast()),
            Self.keyB + "9", Self.keyB.uppercased(), " " + Self.keyB, Self.keyB + " ", "x",
        ]
        for key in nearMisses {
            let viaHeader = authenticator.authenticate(authorization: nil, apiKey: key, now: 0)
            #expect(reason(viaHeader) == .unknownAPIKey, "\(key)")
            if case .failure(let failure) = viaHeader {
                #expect(failure.challenge == #"Bearer error="invalid_token""#)
                #expect(!failure.description.contains(key))
            }
        }
        #expect(
            reason(authenticator.authenticate(authorization: "Bearer ak_wrong", apiKey: nil, now: 0)) == .unknownAPIKey)
        #expect(reason(authenticator.authenticate(authorization: nil, apiKey: "", now: 0)) == .malformedAuthorization)
        let huge = String(repeating: "k", count: 9000)
        #expect(
            reason(authenticator.authenticate(authorization: nil, apiKey: huge, now: 0))
                == .tokenTooLarge(bytes: 9000, limit: 8192))
        // With no API key configured, an API key is refused and a dot-less bearer value is a malformed token.
        let none = Authenticator(configuration: AlgorithmFixture.settings(), keys: .empty)
        #expect(reason(none.authenticate(authorization: nil, apiKey: Self.keyA, now: 0)) == .unknownAPIKey)
        #expect(
            reason(none.authenticate(authorization: "Bearer " + Self.keyA, apiKey: nil, now: 0))
                == .malformedToken(detail: "not three segments"))
    }

    /// Every configured digest is compared, in order, whether the first one matches or none does.
    @Test func everyConfiguredDigestIsCompared() throws {
        let compared = Mutex<[SHA256Digest]>([])
        let authenticator = Authenticator(
            configuration: AlgorithmFixture.settings(apiKeys: Self.apiKeys), keys: .empty,
            compareDigests: { presented, configured in
                compared.withLock { $0.append(configured) }
                return Authenticator.constantTimeEquals(presented, configured)
            })
        for (key, expected) in [(Self.keyA, "backend-a"), (Self.keyC, "backend-c"), ("unknown", nil)] {
            compared.withLock { $0 = [] }
            let result = authenticator.authenticate(authorization: nil, apiKey: key, now: 0)
            #expect(principal(result)?.subject == expected)
            #expect(compared.withLock { $0 } == Self.apiKeys.map(\.sha256), "\(key)")
        }
        // The production comparator is constant-time equality of the 32 bytes.
        #expect(Authenticator.constantTimeEquals(SHA256.hash(Self.keyA), SHA256.hash(Self.keyA)))
        #expect(!Authenticator.constantTimeEquals(SHA256.hash(Self.keyA), SHA256.hash(Self.keyB)))
    }

    @Test func apiKeyDigestsParseFromHex() {
        let digest = SHA256.hash(Self.keyA)
        #expect(APIKey(id: "a", sha256Hex: digest.hex)?.sha256 == digest)
        #expect(APIKey(id: "a", sha256Hex: digest.hex.uppercased())?.sha256 == digest)
        #expect(APIKey(id: "a", sha256Hex: String(digest.hex.dropLast())) == nil)
        #expect(APIKey(id: "a", sha256Hex: digest.hex + "00") == nil)
        #expect(APIKey(id: "a", sha256Hex: String(digest.hex.dropLast()) + "g") == nil)
    }

    /// RFC 6750, section 3: no error code without a bearer credential; invalid_request for a
    /// malformed request; invalid_token for everything about the token.
    @Test func challengesFollowRFC6750() throws {
        let fixture = try AlgorithmFixture(.hs256)
        let authenticator = fixture.authenticator(AlgorithmFixture.settings(apiKeys: Self.apiKeys))
        let token = try fixture.token()
        let cases: [(String?, String?, AuthFailure.Reason, String)] = [
            (nil, nil, .missingCredentials, #"Bearer realm="presignd""#),
            ("Basic dXNlcjpwYXNz", nil, .unsupportedScheme, #"Bearer realm="presignd""#),
            ("Bearertoken", nil, .unsupportedScheme, #"Bearer realm="presignd""#),
            ("Bearer\t" + token, nil, .unsupportedScheme, #"Bearer realm="presignd""#),
            ("", nil, .unsupportedScheme, #"Bearer realm="presignd""#),
            ("Bearer", nil, .malformedAuthorization, #"Bearer error="invalid_request""#),
            ("Bearer   ", nil, .malformedAuthorization, #"Bearer error="invalid_request""#),
            ("Bearer " + token, Self.keyA, .conflictingCredentials, #"Bearer error="invalid_request""#),
            ("Bearer " + token + "x", nil, .badSignature, #"Bearer error="invalid_token""#),
            (
                "Bearer YWJj.b.c", nil, .malformedToken(detail: "header is not a JSON object"),
                #"Bearer error="invalid_token""#
            ),
        ]
        for (authorization, apiKey, expected, challenge) in cases {
            let result = authenticator.authenticate(
                authorization: authorization, apiKey: apiKey, now: AlgorithmFixture.now)
            guard case .failure(let failure) = result else {
                Issue.record("accepted: \(authorization ?? "nil")")
                continue
            }
            #expect(failure.reason == expected)
            #expect(failure.challenge == challenge)
            #expect(!failure.description.contains(token) && !"\(failure)".contains(String(token.suffix(20))))
        }
        #expect(AuthFailure.status == 401)
        #expect(AuthFailure.responseBody == #"{"code":"UNAUTHORIZED","message":"invalid or missing credentials"}"#)
    }

    @Test func theSchemeIsCaseInsensitiveAndSpacesMayRepeat() throws {
        let fixture = try AlgorithmFixture(.rs256)
        let token = try fixture.token()
        for prefix in ["Bearer ", "bearer ", "BEARER ", "bEaReR ", "Bearer    "] {
            let result = fixture.authenticator().authenticate(
                authorization: prefix + token, apiKey: nil, now: AlgorithmFixture.now)
            #expect(principal(result)?.subject == "user-42", "\(prefix)")
        }
    }

    /// No failure reason carries any part of the token, whatever is wrong with it.
    @Test func failureReasonsNeverQuoteTheToken() throws {
        let fixture = try AlgorithmFixture(.es256)
        let token = try fixture.token(AlgorithmFixture.claims(["exp": "\(AlgorithmFixture.now - 3600)"]))
        let parts = token.split(separator: ".").map(String.init)
        let variants = [token, parts[0] + ".x" + parts[1] + "." + parts[2], parts[0] + "." + parts[1], token + "A"]
        for variant in variants {
            guard case .failure(let failure) = fixture.outcome(variant) else {
                Issue.record("accepted")
                continue
            }
            for part in parts { #expect(!failure.description.contains(part.prefix(16))) }
        }
    }
}
