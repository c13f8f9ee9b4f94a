import Auth
import Crypto
import HTTPServer
import Logging
import System

/// Bearer tokens and API keys (`auth.mode = jwt`).
public struct TokenCallerResolver: CallerResolver {
    let authenticator: Authenticator
    let nowSeconds: @Sendable () -> Int64
    let log: LogSink?

    /// A resolver verifying with `authenticator` at the time `nowSeconds` gives; each refusal's reason
    /// goes to `log` (never the credential).
    public init(authenticator: Authenticator, nowSeconds: @escaping @Sendable () -> Int64, log: LogSink? = nil) {
        self.authenticator = authenticator
        self.nowSeconds = nowSeconds
        self.log = log
    }

    /// The principal of a valid token or API key as a caller; otherwise 401 with a `WWW-Authenticate`
    /// challenge and a body that says nothing about why (the reason goes to the log only, as
    /// `{"msg":"auth refused","reason":…,"detail":…,"requestId":…}`).
    public func resolve(_ request: Request) -> Result<Caller, APIError> {
        let result = authenticator.authenticate(
            authorization: request.header("Authorization"), apiKey: request.header(Authenticator.apiKeyHeader),
            now: nowSeconds())
        switch result {
        case .success(let p):
            let prefix = p.kind == .apiKey ? "apikey-" : ""
            return .success(Caller(userId: TokenCallerResolver.keySafeUserId(prefix + p.subject)))
        case .failure(let f):
            log?.info(
                "auth refused", ["reason": f.reason.code, "detail": f.description, "requestId": request.requestId])
            return .failure(.unauthorized(f))
        }
    }

    /// A user id usable in object keys and as the owner: the subject itself when it is 1–64 of
    /// `[a-z0-9_-]`, else `u-` and 32 hex digits of its SHA-256 (stable, and no character of the subject
    /// ever reaches a key).
    static func keySafeUserId(_ subject: String) -> String {
        if Caller.isValidUserId(subject) { return subject }
        return "u-" + String(SHA256.hash(subject).hex.prefix(32))
    }
}
