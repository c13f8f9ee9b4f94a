import Crypto

/// Decides who is calling from a request's credentials: a bearer JWT, or an API key.
///
/// Pure: the time comes in as a parameter and the keys were loaded before. Accepted credentials:
/// - `Authorization: Bearer <JWT>` (RFC 6750, section 2.1; the scheme name in any case);
/// - an API key as `X-Api-Key: <key>`, or as `Authorization: Bearer <key>` when the value has
///   no `.` (a JWT always has two). Sending both headers is refused.
/// The credential's length is checked before anything is decoded.
public struct Authenticator: Sendable {
    /// What is accepted.
    public let settings: AuthSettings
    /// The token verification keys.
    public let keys: KeySet
    /// Compares two digests; always `ConstantTime.equals` except in tests that count calls.
    let compareDigests: @Sendable (SHA256Digest, SHA256Digest) -> Bool

    /// The header that carries an API key.
    public static let apiKeyHeader = "X-Api-Key"

    /// An authenticator for `configuration`, verifying tokens with `keys`.
    public init(configuration: AuthSettings, keys: KeySet) {
        self.init(configuration: configuration, keys: keys, compareDigests: Self.constantTimeEquals)
    }

    /// An authenticator whose API-key digests are compared by `compareDigests` (for tests).
    init(
        configuration: AuthSettings, keys: KeySet,
        compareDigests: @escaping @Sendable (SHA256Digest, SHA256Digest) -> Bool
    ) {
        self.settings = configuration
        self.keys = keys
        self.compareDigests = compareDigests
    }

    /// The caller of a request with these header values (nil when absent) at `now`, seconds since 1970.
    public func authenticate(authorization: String?, apiKey: String?, now: Int64) -> Result<Principal, AuthFailure> {
        switch (authorization, apiKey) {
        case (nil, nil):
            return .failure(AuthFailure(.missingCredentials))
        case (.some, .some):
            return .failure(AuthFailure(.conflictingCredentials))
        case (nil, .some(let key)):
            return verifyAPIKey(Array(key.utf8))
        case (.some(let header), nil):
            var bytes = Array(header.utf8)
            switch Self.bearerToken(in: bytes) {
            case .success(let range): bytes = Array(bytes[range])
            case .failure(let failure): return .failure(failure)
            }
            guard bytes.count <= settings.maxTokenBytes else {
                return .failure(AuthFailure(.tokenTooLarge(bytes: bytes.count, limit: settings.maxTokenBytes)))
            }
            if !settings.apiKeys.isEmpty && !bytes.contains(UInt8(ascii: ".")) { return verifyAPIKey(bytes) }
            return verifyToken(bytes, now: now)
        }
    }

    /// The user of the bearer JWT `token` at `now`.
    public func verifyToken(_ token: String, now: Int64) -> Result<Principal, AuthFailure> {
        verifyToken(Array(token.utf8), now: now)
    }

    /// The user of the bearer JWT `token` at `now`.
    func verifyToken(_ token: [UInt8], now: Int64) -> Result<Principal, AuthFailure> {
        TokenVerifier(settings: settings, keys: keys).verify(token, now: now).map {
            Principal(subject: $0, kind: .user)
        }
    }

    /// The range of the token in an `Authorization` value `Bearer <token>` (RFC 6750, section 2.1:
    /// `"Bearer" 1*SP b64token`; the scheme is case-insensitive, RFC 9110, section 11.1).
    static func bearerToken(in header: [UInt8]) -> Result<Range<Int>, AuthFailure> {
        let scheme = Array("bearer".utf8)
        let schemeEnd = header.firstIndex(of: UInt8(ascii: " ")) ?? header.count
        guard schemeEnd == scheme.count,
            zip(header[..<schemeEnd], scheme).allSatisfy({ $0 | 0x20 == $1 })
        else { return .failure(AuthFailure(.unsupportedScheme)) }
        var start = schemeEnd
        while start < header.count && header[start] == UInt8(ascii: " ") { start += 1 }
        guard start < header.count else { return .failure(AuthFailure(.malformedAuthorization)) }
        return .success(start..<header.count)
    }
}
