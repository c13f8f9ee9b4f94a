/// The errors of the SigV4 module; each carries the offending value or a reason, never a secret.
public enum SigV4Error: Error, Sendable, Equatable {
    /// The endpoint URL is not `http(s)://host[:port][/]`; the payload says why.
    case invalidEndpoint(String)
    /// The region is empty or holds characters other than `a-z`, `0-9` and `-`.
    case invalidRegion(String)
    /// The service name is empty or holds characters other than `a-z`, `0-9` and `-`.
    case invalidService(String)
    /// The credentials cannot sign (empty or malformed access key, empty secret); the payload says why.
    case invalidCredentials(String)
    /// A URL lifetime outside `1...604800` seconds (SigV4's limit of seven days).
    case invalidExpiry(Int)
    /// A method that is not an upper-case HTTP token.
    case invalidMethod(String)
    /// A bucket name that cannot be used: 3 to 255 bytes of `A-Z a-z 0-9 . _ -`, starting and
    /// ending with a letter or digit.
    case invalidBucket(String)
    /// An object key that is empty, longer than 1024 UTF-8 bytes, or has a `.` or `..` segment.
    case invalidKey(String)
    /// A header that cannot be signed: a reserved or malformed name, a duplicate, or a value with
    /// control or non-ASCII characters.
    case invalidHeader(name: String, reason: String)
    /// A query parameter that cannot be signed: an `X-Amz-` name (reserved), or a duplicate.
    case invalidQuery(name: String, reason: String)
    /// A payload hash that is neither 64 lower-case hexadecimal digits nor `UNSIGNED-PAYLOAD`.
    case invalidPayloadHash(String)
    /// The credentials have `secondsLeft` seconds of life (0: expired), too few to sign a URL that
    /// lives long enough to be used (`RotatingPresigner.minimumLifetimeSeconds`).
    case credentialsExpiring(secondsLeft: Int)
}
