import Config
import Logging
import SigV4
import System

/// Client P's contract as far as credentials go: it keeps only six query parameters when it
/// rebuilds a URL, so a URL that needs `X-Amz-Security-Token` cannot work for it.
enum ClientPContract {
    /// The routes served with client P's contract (`METHOD /path`); a route added for client P (a
    /// compatibility profile) belongs here too, so the start-up rule covers it.
    static func routes(_ config: PresigndConfig) -> [String] {
        config.presign.serveClientP ? ["GET /presigned-url", "GET " + issuePath] : []
    }

    /// Client P's own server's issue path (served natively when `presign.serveClientP`).
    static let issuePath = "/v1/storage/presigned-url"

    /// The error shapes of client P's server for its issue route, when the `clientP` profile is on and
    /// the route is served: the profile's, since that server answers every route's errors alike
    /// (`{"code":"<status>0","message":…}`, `4220` with `fieldErrors`, a signing failure as 400
    /// `"4001"`; docs/operations.md). Nil otherwise: the route keeps presignd's errors.
    static func issueErrors(_ config: PresigndConfig) -> [String: CompatRouteConfig.Shape]? {
        guard config.presign.serveClientP, config.compat.profiles.contains("clientP"),
            let errors = CompatProfiles.routes(of: "clientP")?.first(where: { $0.name == "clientP.profileImage" })?
                .errors
        else { return nil }
        return errors
    }

    /// Why these credentials cannot serve client P, or nil when they can (no session token, or no
    /// client P route is served).
    static func conflict(_ config: PresigndConfig, credentials: Credentials, provider: String) -> String? {
        let routes = routes(config)
        guard credentials.sessionToken != nil, !routes.isEmpty else { return nil }
        return "the credentials from \(provider) carry a session token, and client P keeps only six query "
            + "parameters (no X-Amz-Security-Token) when it rebuilds a URL, so its uploads through "
            + routes.joined(separator: ", ") + " would be refused by storage; use long-term keys, set "
            + "presign.serveClientP=false, or presign.temporaryCredentialsWithClientP=warn to start anyway"
    }

    /// Start-up's rule: with a conflict, refuse (exit 2) or, when configured so, warn.
    static func check(_ config: PresigndConfig, credentials: Credentials, provider: String, log: LogSink)
        throws(AppError)
    {
        guard let reason = conflict(config, credentials: credentials, provider: provider) else { return }
        switch config.presign.temporaryCredentialsWithClientP {
        case .refuse: throw .refused("presign", reason)
        case .warn: log.warn("client P's uploads will fail", ["reason": reason])
        }
    }
}
