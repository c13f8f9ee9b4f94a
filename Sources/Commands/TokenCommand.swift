import Auth
import Config

/// `presignd token --user ID [--ttl DURATION]`: an HS256 bearer token for a development caller,
/// signed with the configuration's `auth.hs256Secret` (`PRESIGN_AUTH_HS256_SECRET[_FILE]`), with the
/// claims the server checks (`auth.jwtUserClaim`, `auth.jwtIssuer`, `auth.jwtAudience`).
public enum TokenCommand {
    /// What the command prints: the token (standard output) and notes (standard error), and its exit
    /// status (0, or 2 when the configuration has no usable HS256 secret).
    public struct Outcome: Sendable {
        /// The token, or the reason for status 2.
        public var output: String
        /// What the caller should know: the server would not accept the token as configured.
        public var notes: [String]
        /// The exit status.
        public var status: Int32
    }

    /// Mints the token for `arguments` at `nowSeconds`.
    public static func run(config: PresigndConfig, arguments: TokenArguments, nowSeconds: Int64) -> Outcome {
        let auth = config.auth
        guard let secret = auth.hs256Secret else {
            return Outcome(
                output: "presignd token: auth.hs256Secret is not set (set PRESIGN_AUTH_HS256_SECRET or "
                    + "PRESIGN_AUTH_HS256_SECRET_FILE, as the server has it)", notes: [], status: 2)
        }
        let minter: TokenMinter
        do {
            minter = try TokenMinter(secret: secret)
        } catch {
            return Outcome(output: "presignd token: auth.hs256Secret: \(error)", notes: [], status: 2)
        }
        var notes: [String] = []
        if auth.mode != .jwt {
            notes.append("auth.mode is \(auth.mode.rawValue): a server with this configuration does not read tokens")
        }
        if !auth.jwtAlgorithms.contains("HS256") {
            notes.append("auth.jwtAlgorithms does not list HS256: a server with this configuration refuses the token")
        }
        let token = minter.token(
            user: arguments.user, userClaim: auth.jwtUserClaim, issuedAt: nowSeconds,
            lifetimeSeconds: arguments.lifetimeSeconds, issuer: auth.jwtIssuer, audience: auth.jwtAudience)
        return Outcome(output: token, notes: notes, status: 0)
    }
}
