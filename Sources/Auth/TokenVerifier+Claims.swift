import JSON

extension TokenVerifier {
    /// The subject when the claims are acceptable at `now` (RFC 7519, section 4.1).
    ///
    /// `exp` is required and `nbf`, `iat` are optional NumericDates; `now` must be before `exp` +
    /// leeway, not before `nbf` − leeway, and `iat` must not be after `now` + leeway. `iss` and
    /// `aud`, when present, must be a string (and `aud` may be an array of strings); each is
    /// compared only when configured, and must then be present.
    func check(_ claims: JSONObject, now: Int64) -> Result<String, AuthFailure> {
        let leeway = settings.leewaySeconds
        guard let expiry = claims["exp"] else { return invalid("exp") }
        guard let expires = Self.seconds(expiry, roundingUp: false) else { return invalid("exp") }
        guard now < expires.addingSaturating(leeway) else { return .failure(AuthFailure(.expired)) }
        if let notBefore = claims["nbf"] {
            guard let start = Self.seconds(notBefore, roundingUp: true) else { return invalid("nbf") }
            guard now >= start.subtractingSaturating(leeway) else { return .failure(AuthFailure(.notYetValid)) }
        }
        if let issuedAt = claims["iat"] {
            guard let issued = Self.seconds(issuedAt, roundingUp: false) else { return invalid("iat") }
            guard issued <= now.addingSaturating(leeway) else { return .failure(AuthFailure(.issuedInTheFuture)) }
        }
        let issuerClaim = claims["iss"]
        if let issuerClaim, issuerClaim.stringValue == nil { return invalid("iss") }
        if let issuer = settings.issuer, issuerClaim?.stringValue != issuer {
            return .failure(AuthFailure(.wrongIssuer))
        }
        var audiences: [String] = []
        if let audienceClaim = claims["aud"] {
            if let single = audienceClaim.stringValue {
                audiences = [single]
            } else if let list = audienceClaim.arrayValue {
                audiences = list.compactMap(\.stringValue)
                guard audiences.count == list.count else { return invalid("aud") }
            } else {
                return invalid("aud")
            }
        }
        if let audience = settings.audience, !audiences.contains(audience) {
            return .failure(AuthFailure(.wrongAudience))
        }
        guard let subject = claims[settings.userClaim]?.stringValue, !subject.isEmpty,
            subject.utf8.count <= AuthSettings.maxSubjectBytes
        else { return .failure(AuthFailure(.invalidSubject)) }
        return .success(subject)
    }

    /// An invalid-claim failure for `name`.
    private func invalid(_ name: String) -> Result<String, AuthFailure> {
        .failure(AuthFailure(.invalidClaim(name: name)))
    }

    /// A NumericDate (RFC 7519, section 2) as whole seconds, or nil.
    ///
    /// Accepted: an integer or a decimal fraction (no exponent) whose integer part fits in
    /// `Int64`. A fraction is rounded down (for `exp`, `iat`) or up (`roundingUp`, for `nbf`),
    /// so that rounding never widens the token's validity.
    static func seconds(_ value: JSONValue, roundingUp: Bool) -> Int64? {
        guard let literal = value.numberValue?.literal.utf8 else { return nil }
        var digits = literal[...]
        let negative = digits.first == UInt8(ascii: "-")
        if negative { digits = digits.dropFirst() }
        let integerDigits = digits.prefix { $0 >= 0x30 && $0 <= 0x39 }
        var rest = digits.dropFirst(integerDigits.count)
        var fractionIsZero = true
        if rest.first == UInt8(ascii: ".") {
            rest = rest.dropFirst()
            let fraction = rest.prefix { $0 >= 0x30 && $0 <= 0x39 }
            guard !fraction.isEmpty else { return nil }
            fractionIsZero = fraction.allSatisfy { $0 == 0x30 }
            rest = rest.dropFirst(fraction.count)
        }
        guard rest.isEmpty, !integerDigits.isEmpty else { return nil }  // an exponent, or no digits
        // Accumulate negatively so that Int64.min fits, then negate for a positive literal.
        var result: Int64 = 0
        for digit in integerDigits {
            let (shifted, overflowed) = result.multipliedReportingOverflow(by: 10)
            let (next, borrowed) = shifted.subtractingReportingOverflow(Int64(digit - 0x30))
            guard !overflowed, !borrowed else { return nil }
            result = next
        }
        if !negative {
            guard result != Int64.min else { return nil }
            result = -result
        }
        if !fractionIsZero {
            // Truncation went toward zero; move one second the way the caller's rounding asks.
            if roundingUp && !negative {
                guard result < Int64.max else { return nil }
                result += 1
            } else if !roundingUp && negative {
                guard result > Int64.min else { return nil }
                result -= 1
            }
        }
        return result
    }
}

extension Int64 {
    /// `self + other`, clamped to the range of `Int64`.
    func addingSaturating(_ other: Int64) -> Int64 {
        let (sum, overflowed) = addingReportingOverflow(other)
        return overflowed ? (other > 0 ? .max : .min) : sum
    }

    /// `self - other`, clamped to the range of `Int64`.
    func subtractingSaturating(_ other: Int64) -> Int64 {
        let (difference, overflowed) = subtractingReportingOverflow(other)
        return overflowed ? (other > 0 ? .min : .max) : difference
    }
}
