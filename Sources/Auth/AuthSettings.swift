/// What the authenticator accepts: algorithms, claim checks, limits and API keys.
///
/// Made by the application from the `auth` section of the configuration; the keys come apart, in
/// a `KeySet`.
public struct AuthSettings: Sendable, Equatable {
    /// The `alg` values accepted (case-sensitive); `none` can never be one.
    public var algorithms: Set<JWTAlgorithm>
    /// The required `iss`, or nil to leave it unchecked.
    public var issuer: String?
    /// The audience that `aud` must hold (as the string or one element of the array), or nil to leave it unchecked.
    public var audience: String?
    /// Clock skew tolerated on `exp`, `nbf` and `iat`, in seconds.
    public var leewaySeconds: Int64
    /// The claim that holds the user id.
    public var userClaim: String
    /// Longest credential accepted, in bytes, checked before anything is decoded.
    public var maxTokenBytes: Int
    /// API keys for server-to-server callers.
    public var apiKeys: [APIKey]

    /// Settings; every argument defaults to the configuration's default.
    public init(
        algorithms: Set<JWTAlgorithm> = [.rs256, .es256], issuer: String? = nil, audience: String? = nil,
        leewaySeconds: Int64 = 60, userClaim: String = "sub", maxTokenBytes: Int = 8192, apiKeys: [APIKey] = []
    ) {
        precondition(leewaySeconds >= 0, "AuthSettings: the leeway is never negative")
        precondition(maxTokenBytes > 0, "AuthSettings: the token limit is positive")
        self.algorithms = algorithms
        self.issuer = issuer
        self.audience = audience
        self.leewaySeconds = leewaySeconds
        self.userClaim = userClaim
        self.maxTokenBytes = maxTokenBytes
        self.apiKeys = apiKeys
    }

    /// The most bytes of a user id (the user claim's string).
    public static let maxSubjectBytes = 256
}
