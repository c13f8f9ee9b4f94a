import Auth
import Crypto
import HTTPServer
import Synchronization

/// The way into every issue, confirm and records route: a per-address rate limit (before any token is
/// verified, so a flood of bad tokens is cheap to refuse), then the caller, then a per-user rate limit.
public final class Gate: Sendable {
    /// Which routes' limits apply.
    public enum Scope: Sendable {
        /// Issuing URLs (`/presigned-url`).
        case issue
        /// Confirming and reading records (`/images`).
        case confirm
    }

    struct Limits: Sendable {
        let perUser: RateLimiter
        let perAddress: RateLimiter
    }

    private let callers: any CallerResolver
    private let issue: Limits?
    private let confirm: Limits?
    private let trustForwardedFor: Bool
    /// Requests refused with 429, by scope.
    let limitedIssue = Atomic<Int>(0)
    let limitedConfirm = Atomic<Int>(0)

    /// A gate with rate limits, or without (`limits` nil).
    init(callers: any CallerResolver, issue: Limits?, confirm: Limits?, trustForwardedFor: Bool) {
        self.callers = callers
        self.issue = issue
        self.confirm = confirm
        self.trustForwardedFor = trustForwardedFor
    }

    /// A gate that only resolves the caller (no limits): for tests and `limits.enabled = false`.
    public convenience init(callers: any CallerResolver) {
        self.init(callers: callers, issue: nil, confirm: nil, trustForwardedFor: false)
    }

    /// The caller of `request`, or the response that refuses it (429, 401, 400).
    public func admit(_ request: Request, _ scope: Scope) -> Result<Caller, ResolveFailure> {
        let limits = scope == .issue ? issue : confirm
        if let limits {
            if case .limited(let after) = limits.perAddress.check(clientAddress(request)) {
                return .failure(tooMany(after, scope))
            }
        }
        let caller: Caller
        switch callers.resolve(request) {
        case .success(let c): caller = c
        case .failure(let f): return .failure(f)
        }
        if let limits, case .limited(let after) = limits.perUser.check(caller.userId) {
            var refusal = tooMany(after, scope).response
            refusal.userId = caller.userId
            return .failure(ResolveFailure(response: refusal))
        }
        return .success(caller)
    }

    /// Admits the caller of `request` and answers with `body`, its response marked with the caller's
    /// user id for the access log; a refusal is answered as it is.
    func serve(_ request: Request, _ scope: Scope, _ body: (Caller) -> Response) -> Response {
        switch admit(request, scope) {
        case .success(let caller):
            var response = body(caller)
            response.userId = caller.userId
            return response
        case .failure(let f): return f.response
        }
    }

    /// `serve` for handlers that may hand their work to the worker pool.
    func serve(_ request: Request, _ scope: Scope, _ body: (Caller) -> HandlerResult) -> HandlerResult {
        switch admit(request, scope) {
        case .success(let caller): return body(caller).servingUser(caller.userId)
        case .failure(let f): return .respond(f.response)
        }
    }

    private func tooMany(_ seconds: Int, _ scope: Scope) -> ResolveFailure {
        if scope == .issue {
            limitedIssue.wrappingAdd(1, ordering: .relaxed)
        } else {
            limitedConfirm.wrappingAdd(1, ordering: .relaxed)
        }
        var r = APIError.error(429, "RATE_LIMITED", "too many requests; retry later")
        r.headers.append(("Retry-After", String(seconds)))
        return ResolveFailure(response: r)
    }

    /// The client's address: the peer's IP, or the last `X-Forwarded-For` hop when the proxy is trusted.
    func clientAddress(_ request: Request) -> String {
        if trustForwardedFor, let xff = request.header("X-Forwarded-For"),
            let last = xff.split(separator: ",").last?.trimmingSpaces(), !last.isEmpty
        {
            return String(last)
        }
        return Gate.host(ofPeer: request.peer)
    }

    /// "1.2.3.4:5678" -> "1.2.3.4"; "[::1]:5678" -> "::1".
    static func host(ofPeer peer: String) -> String {
        if peer.hasPrefix("["), let close = peer.firstIndex(of: "]") {
            return String(peer[peer.index(after: peer.startIndex)..<close])
        }
        if let colon = peer.lastIndex(of: ":") { return String(peer[..<colon]) }
        return peer
    }
}

extension HandlerResult {
    /// The same result, its response (now or from the worker pool) marked with `userId` for the access log.
    func servingUser(_ userId: String) -> HandlerResult {
        switch self {
        case .respond(var response):
            response.userId = userId
            return .respond(response)
        case .blocking(let work):
            return .blocking {
                var response = work()
                response.userId = userId
                return response
            }
        }
    }
}

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
    public func resolve(_ request: Request) -> Result<Caller, ResolveFailure> {
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
            var r = APIError.error(401, "UNAUTHORIZED", "invalid or missing credentials")
            r.headers.append(("WWW-Authenticate", f.challenge))
            return .failure(ResolveFailure(response: r))
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
