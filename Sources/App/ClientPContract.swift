import Config
import SigV4
import System

/// Client P's contract as far as credentials go: it keeps only six query parameters when it
/// rebuilds a URL, so a URL that needs `X-Amz-Security-Token` cannot work for it.
enum ClientPContract {
    /// The routes served with client P's contract (`METHOD /path`); a route added for client P (a
    /// compatibility profile) belongs here too, so the start-up rule covers it.
    static func routes(_ config: PresigndConfig) -> [String] {
        config.presign.serveClientP ? ["GET /presigned-url", "GET /v1/storage/presigned-url"] : []
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
