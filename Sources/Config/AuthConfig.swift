import Crypto

/// The `auth` section: how callers are identified.
public struct AuthConfig: Sendable, Equatable {
    /// `dev` (the user id comes from a header, for development) or `none` (every caller is the default user).
    public var mode: String
    /// Header that carries the user id in `dev` mode.
    public var devUserHeader: String
    /// User id used when the header is absent (`dev`) or always (`none`).
    public var devDefaultUserId: String
    /// Key for HS256 bearer tokens; only from the environment, never from the config file.
    public var hs256Secret: Secret?

    /// Auth settings; every argument defaults to the documented default.
    public init(
        mode: String = "dev", devUserHeader: String = "X-User-Id", devDefaultUserId: String = "1",
        hs256Secret: Secret? = nil
    ) {
        self.mode = mode
        self.devUserHeader = devUserHeader
        self.devDefaultUserId = devDefaultUserId
        self.hs256Secret = hs256Secret
    }
}
