import Auth
import Testing

/// Claims checks (RFC 7519, section 4.1), each for HS256, RS256 and ES256 tokens signed at test time.
struct TokenClaimsTests {
    static let algorithms = JWTAlgorithm.allCases
    static let now = AlgorithmFixture.now

    @Test(arguments: algorithms)
    func aValidTokenNamesItsUser(_ algorithm: JWTAlgorithm) throws {
        let fixture = try AlgorithmFixture(algorithm)
        let result = fixture.outcome(try fixture.token())
        #expect(principal(result) == Principal(subject: "user-42", kind: .user))
        // The same token with no issuer or audience configured.
        #expect(principal(fixture.outcome(try fixture.token(), settings: .init(algorithms: [algorithm]))) != nil)
    }

    /// `exp`: valid while now < exp + leeway (leeway 60 s by default).
    @Test(arguments: algorithms)
    func expiry(_ algorithm: JWTAlgorithm) throws {
        let fixture = try AlgorithmFixture(algorithm)
        let cases: [(Int64, Int64, AuthFailure.Reason?)] = [  // exp offset from now, leeway, expected failure
            (300, 60, nil), (-59, 60, nil), (-60, 60, .expired), (-61, 60, .expired), (-86400, 60, .expired),
            (1, 0, nil), (0, 0, .expired), (-1, 300, nil),
        ]
        for (offset, leeway, expected) in cases {
            let token = try fixture.token(AlgorithmFixture.claims(["exp": "\(Self.now + offset)"]))
            let result = fixture.outcome(token, settings: AlgorithmFixture.settings(leeway: leeway))
            #expect(reason(result) == expected, "exp now\(offset) leeway \(leeway)")
        }
        #expect(
            reason(fixture.outcome(try fixture.token(AlgorithmFixture.claims(["exp": nil]))))
                == .invalidClaim(name: "exp"))
    }

    /// `nbf`: valid once now >= nbf - leeway; `iat` in the future beyond the leeway is refused.
    @Test(arguments: algorithms)
    func notBeforeAndIssuedAt(_ algorithm: JWTAlgorithm) throws {
        let fixture = try AlgorithmFixture(algorithm)
        let cases: [(String, Int64, Int64, AuthFailure.Reason?)] = [
            ("nbf", 0, 60, nil), ("nbf", 60, 60, nil), ("nbf", 61, 60, .notYetValid), ("nbf", 3600, 60, .notYetValid),
            ("nbf", 1, 0, .notYetValid), ("nbf", -1, 0, nil),
            ("iat", 60, 60, nil), ("iat", 61, 60, .issuedInTheFuture), ("iat", -3600, 0, nil),
            ("iat", 1, 0, .issuedInTheFuture),
        ]
        for (claim, offset, leeway, expected) in cases {
            let token = try fixture.token(AlgorithmFixture.claims([claim: "\(Self.now + offset)"]))
            let result = fixture.outcome(token, settings: AlgorithmFixture.settings(leeway: leeway))
            #expect(reason(result) == expected, "\(claim) now+\(offset) leeway \(leeway)")
        }
        // A fractional nbf is rounded up: half a second ahead is still ahead without leeway.
        let half = try fixture.token(AlgorithmFixture.claims(["nbf": "\(Self.now).5"]))
        #expect(reason(fixture.outcome(half, settings: AlgorithmFixture.settings(leeway: 0))) == .notYetValid)
        #expect(reason(fixture.outcome(half, settings: AlgorithmFixture.settings(leeway: 1))) == nil)
    }

    @Test(arguments: algorithms)
    func issuer(_ algorithm: JWTAlgorithm) throws {
        let fixture = try AlgorithmFixture(algorithm)
        let cases: [(String?, AuthFailure.Reason?)] = [
            ("\"https://issuer.example\"", nil), ("\"https://evil.example\"", .wrongIssuer),
            ("\"https://issuer.example/\"", .wrongIssuer), ("\"HTTPS://ISSUER.EXAMPLE\"", .wrongIssuer),
            (nil, .wrongIssuer), ("42", .invalidClaim(name: "iss")),
            ("[\"https://issuer.example\"]", .invalidClaim(name: "iss")),
        ]
        for (value, expected) in cases {
            let token = try fixture.token(AlgorithmFixture.claims(["iss": value]))
            #expect(reason(fixture.outcome(token)) == expected, "iss \(value ?? "absent")")
        }
        let unchecked = AlgorithmFixture.settings(issuer: nil)
        let other = try fixture.token(AlgorithmFixture.claims(["iss": "\"https://evil.example\""]))
        #expect(reason(fixture.outcome(other, settings: unchecked)) == nil)
    }

    @Test(arguments: algorithms)
    func audience(_ algorithm: JWTAlgorithm) throws {
        let fixture = try AlgorithmFixture(algorithm)
        let cases: [(String?, AuthFailure.Reason?)] = [
            ("\"presignd\"", nil), ("[\"presignd\"]", nil), ("[\"other\",\"presignd\"]", nil),
            ("\"other\"", .wrongAudience), ("[\"other\",\"another\"]", .wrongAudience), ("[]", .wrongAudience),
            ("\"Presignd\"", .wrongAudience), (nil, .wrongAudience),
            ("[\"presignd\",5]", .invalidClaim(name: "aud")), ("5", .invalidClaim(name: "aud")),
            ("{\"aud\":\"presignd\"}", .invalidClaim(name: "aud")), ("null", .invalidClaim(name: "aud")),
        ]
        for (value, expected) in cases {
            let token = try fixture.token(AlgorithmFixture.claims(["aud": value]))
            #expect(reason(fixture.outcome(token)) == expected, "aud \(value ?? "absent")")
        }
        let unchecked = AlgorithmFixture.settings(audience: nil)
        let other = try fixture.token(AlgorithmFixture.claims(["aud": "[\"other\"]"]))
        #expect(reason(fixture.outcome(other, settings: unchecked)) == nil)
    }

    @Test(arguments: algorithms)
    func subject(_ algorithm: JWTAlgorithm) throws {
        let fixture = try AlgorithmFixture(algorithm)
        let longest = String(repeating: "u", count: 256)
        let cases: [(String?, String?)] = [  // sub value, expected subject (nil: invalidSubject)
            ("\"user-42\"", "user-42"), ("\"\(longest)\"", longest), ("\"사용자\"", "사용자"),
            (nil, nil), ("\"\"", nil), ("42", nil), ("null", nil), ("[\"user-42\"]", nil), ("true", nil),
            ("\"\(longest)u\"", nil), ("\"\(String(repeating: "é", count: 129))\"", nil),  // 257 and 258 bytes
        ]
        for (value, expected) in cases {
            let result = fixture.outcome(try fixture.token(AlgorithmFixture.claims(["sub": value])))
            if let expected {
                #expect(principal(result)?.subject == expected)
            } else {
                #expect(reason(result) == .invalidSubject, "sub \(value ?? "absent")")
            }
        }
    }

    @Test(arguments: algorithms)
    func customUserClaim(_ algorithm: JWTAlgorithm) throws {
        let fixture = try AlgorithmFixture(algorithm)
        let settings = AlgorithmFixture.settings(userClaim: "uid")
        let token = try fixture.token(AlgorithmFixture.claims(["uid": "\"u-7\""]))
        #expect(principal(fixture.outcome(token, settings: settings)) == Principal(subject: "u-7", kind: .user))
        #expect(reason(fixture.outcome(try fixture.token(), settings: settings)) == .invalidSubject)
        let numeric = try fixture.token(AlgorithmFixture.claims(["uid": "7"]))
        #expect(reason(fixture.outcome(numeric, settings: settings)) == .invalidSubject)
    }

    /// NumericDate values: integers or decimals within Int64; no exponents, strings or other types.
    @Test(arguments: algorithms)
    func numericDates(_ algorithm: JWTAlgorithm) throws {
        let fixture = try AlgorithmFixture(algorithm)
        let cases: [(String, AuthFailure.Reason?)] = [
            ("\(Self.now + 300)", nil), ("\(Self.now + 300).999", nil), ("\(Self.now + 300).0", nil),
            ("9223372036854775807", nil),  // Int64.max: never expires; the leeway saturates
            ("\"\(Self.now + 300)\"", .invalidClaim(name: "exp")), ("1.8e9", .invalidClaim(name: "exp")),
            ("18E8", .invalidClaim(name: "exp")), ("9223372036854775808", .invalidClaim(name: "exp")),
            ("99999999999999999999.5", .invalidClaim(name: "exp")), ("true", .invalidClaim(name: "exp")),
            ("null", .invalidClaim(name: "exp")), ("[\(Self.now + 300)]", .invalidClaim(name: "exp")),
            ("-1", .expired), ("-9223372036854775808", .expired), ("0", .expired),
        ]
        for (value, expected) in cases {
            let token = try fixture.token(AlgorithmFixture.claims(["exp": value]))
            #expect(reason(fixture.outcome(token)) == expected, "exp \(value)")
        }
        let farPast = try fixture.token(AlgorithmFixture.claims(["nbf": "-9223372036854775808"]))
        #expect(reason(fixture.outcome(farPast)) == nil)
        let badNbf = try fixture.token(AlgorithmFixture.claims(["nbf": "\"0\""]))
        #expect(reason(fixture.outcome(badNbf)) == .invalidClaim(name: "nbf"))
        let badIat = try fixture.token(AlgorithmFixture.claims(["iat": "1e3"]))
        #expect(reason(fixture.outcome(badIat)) == .invalidClaim(name: "iat"))
    }
}
