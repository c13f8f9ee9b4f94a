import Crypto

/// The `auth` section: how callers are identified.
public struct AuthConfig: Sendable, Equatable {
    /// How callers are identified.
    public enum Mode: String, Sendable, CaseIterable {
        /// The user id comes from a header, else the default (for development).
        case dev
        /// Every caller is the default user.
        case none
        /// Bearer JWTs, and API keys when configured.
        case jwt
    }

    /// How callers are identified.
    public var mode: Mode
    /// Header that carries the user id in `dev` mode.
    public var devUserHeader: String
    /// User id used when the header is absent (`dev`) or always (`none`).
    public var devDefaultUserId: String
    /// Key for HS256 bearer tokens; only from the environment, never from the config file.
    public var hs256Secret: Secret?
    /// JWS algorithms accepted in `jwt` mode: `HS256`, `RS256`, `ES256` (case-sensitive).
    public var jwtAlgorithms: [String]
    /// Required `iss` claim; nil (empty in the file) leaves it unchecked.
    public var jwtIssuer: String?
    /// Audience the `aud` claim must hold; nil (empty in the file) leaves it unchecked.
    public var jwtAudience: String?
    /// Clock skew tolerated on `exp`, `nbf` and `iat`, in seconds.
    public var jwtLeewaySeconds: Int
    /// Claim holding the user id.
    public var jwtUserClaim: String
    /// PEM files of public keys or X.509 certificates for RS256 and ES256.
    public var jwtPublicKeyFiles: [String]
    /// A JWK Set file (RSA and EC P-256 keys, chosen by `kid`); nil (empty in the file) for none.
    public var jwksFile: String?
    /// Longest bearer credential accepted, in bytes.
    public var maxTokenBytes: Int
    /// API keys for server-to-server callers (`jwt` mode).
    public var apiKeys: [APIKeyConfig]

    /// Auth settings; every argument defaults to the documented default.
    public init(
        mode: Mode = .dev, devUserHeader: String = "X-User-Id", devDefaultUserId: String = "1",
        hs256Secret: Secret? = nil, jwtAlgorithms: [String] = ["RS256", "ES256"], jwtIssuer: String? = nil,
        jwtAudience: String? = nil, jwtLeewaySeconds: Int = 60, jwtUserClaim: String = "sub",
        jwtPublicKeyFiles: [String] = [], jwksFile: String? = nil, maxTokenBytes: Int = 8192,
        apiKeys: [APIKeyConfig] = []
    ) {
        self.mode = mode
        self.devUserHeader = devUserHeader
        self.devDefaultUserId = devDefaultUserId
        self.hs256Secret = hs256Secret
        self.jwtAlgorithms = jwtAlgorithms
        self.jwtIssuer = jwtIssuer
        self.jwtAudience = jwtAudience
        self.jwtLeewaySeconds = jwtLeewaySeconds
        self.jwtUserClaim = jwtUserClaim
        self.jwtPublicKeyFiles = jwtPublicKeyFiles
        self.jwksFile = jwksFile
        self.maxTokenBytes = maxTokenBytes
        self.apiKeys = apiKeys
    }
}
