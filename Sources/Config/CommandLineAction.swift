/// What the command line asks presignd to do.
public enum CommandLineAction: Sendable {
    /// Serve with this configuration.
    case run(PresigndConfig)
    /// Print `redactedJSON()` of this (valid) configuration and exit 0.
    case checkConfig(PresigndConfig)
    /// GET `/healthz` of the server this configuration describes, on loopback; exit 0 when it answers
    /// 200, else 1 (a container's `HEALTHCHECK`). `addressFromFlags`: `--host` or `--port` was given,
    /// so exactly that address is probed (not the one the running server wrote to `server.listenInfoPath`).
    case healthcheck(PresigndConfig, addressFromFlags: Bool)
    /// Explain why storage refused the URL in the arguments, with this configuration's signer; exit
    /// 0 when nothing differs, 1 when something does, 2 on usage or configuration problems.
    case explain(PresigndConfig, ExplainArguments)
    /// Print an HS256 development token for the user in the arguments, signed with this
    /// configuration's `auth.hs256Secret`; exit 0, or 2 without the secret.
    case token(PresigndConfig, TokenArguments)
    /// Create the RGW topic and the bucket notification of the upload prefixes (`presignd notifications
    /// setup`), pushing to `pushEndpoint` (`--push-endpoint`, else `events.pushEndpoint`); idempotent.
    case notificationsSetup(PresigndConfig, pushEndpoint: String?)
    /// Print `ConfigLoader.version` and exit 0.
    case version
    /// Print this text and exit 0.
    case help(String)
}
