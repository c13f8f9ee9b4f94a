/// What `presignd token --user ID [--ttl DURATION]` asks: an HS256 development token for a user.
public struct TokenArguments: Sendable, Equatable {
    /// The user id the token carries (in `auth.jwtUserClaim`).
    public var user: String
    /// How long the token is valid, in seconds.
    public var lifetimeSeconds: Int64

    /// The default lifetime: one hour.
    public static let defaultLifetimeSeconds: Int64 = 3600
    /// The longest lifetime accepted: 30 days.
    public static let maxLifetimeSeconds: Int64 = 30 * 86_400

    /// Arguments from their parts.
    public init(user: String, lifetimeSeconds: Int64 = TokenArguments.defaultLifetimeSeconds) {
        self.user = user
        self.lifetimeSeconds = lifetimeSeconds
    }

    /// Seconds from a duration: digits with an optional unit `s`, `m`, `h` or `d` (`90`, `90s`, `15m`,
    /// `1h`, `7d`); nil for anything else, zero, or more than `maxLifetimeSeconds`.
    public static func seconds(from text: String) -> Int64? {
        var digits = Substring(text)
        var unit: Int64 = 1
        switch digits.last {
        case "s": digits = digits.dropLast()
        case "m": unit = 60; digits = digits.dropLast()
        case "h": unit = 3600; digits = digits.dropLast()
        case "d": unit = 86_400; digits = digits.dropLast()
        default: break
        }
        guard !digits.isEmpty, digits.utf8.count <= 9, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let value = Int64(digits)
        else { return nil }
        let seconds = value * unit
        guard seconds >= 1, seconds <= maxLifetimeSeconds else { return nil }
        return seconds
    }
}
