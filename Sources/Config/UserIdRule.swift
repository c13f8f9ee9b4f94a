/// The one rule for a user id taken as given: `auth.devDefaultUserId`, the dev user header
/// (`X-User-Id`), and a token subject used as is.
///
/// Invariant: 1 to 64 bytes of `[a-z0-9_-]`. A user id is substituted into object keys
/// (`profile/{userId}/…`), whose templates are lower case, and S3 keys are case-sensitive: folding
/// `Alice` to `alice` would make two callers one owner, so upper case is refused rather than mapped.
public enum UserIdRule {
    /// The longest user id, in bytes.
    public static let maxBytes = 64

    /// The rule in words, for problems and error messages.
    public static let summary = "1-64 characters of a-z 0-9 _ -"

    /// True when `s` is a user id: 1 to 64 of `[a-z0-9_-]`.
    public static func isValid(_ s: String) -> Bool {
        let bytes = s.utf8
        return !bytes.isEmpty && bytes.count <= maxBytes && bytes.allSatisfy(isUserIdByte)
    }

    /// `[a-z0-9_-]`.
    static func isUserIdByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"),
            UInt8(ascii: "-"):
            return true
        default: return false
        }
    }
}
