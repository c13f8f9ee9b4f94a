import Config
import HTTPServer
import Logging

/// Who is asking: the user id that owns intents and records.
public struct Caller: Sendable, Equatable {
    /// The user id, safe for use in object keys (`UserIdRule`: `[a-z0-9_-]`, at most 64 bytes).
    public let userId: String
    /// What the caller should know about how it was resolved (development mode: a header that resembles
    /// the user header, ignored), sent back in a `Warning` header; nil almost always.
    public let warning: String?

    /// A caller with `userId`, and a `warning` for its answers.
    public init(userId: String, warning: String? = nil) {
        self.userId = userId
        self.warning = warning
    }

    /// True when `s` may be a user id as given (`UserIdRule`, the rule `auth.devDefaultUserId` is
    /// validated with), so it can stand in an object key.
    public static func isValidUserId(_ s: String) -> Bool { UserIdRule.isValid(s) }
}

/// Finds the caller of a request, or the error response to send instead (dev header, bearer tokens and
/// API keys, or a fixed user); handlers only see `Caller`.
public protocol CallerResolver: Sendable {
    /// The caller, or the error to answer with (401, 400).
    func resolve(_ request: Request) -> Result<Caller, APIError>
}

/// Development mode: the user id comes from a configured header (e.g. `X-User-Id`), else a default.
///
/// A request without that header but with one that resembles it (`X-UserId`, `X-User`, `User-Id`,
/// `X_User_Id`: `UserHeaderLookalike`) is still the default user, and says so: its answer carries
/// `Warning: 299 presignd "…"` naming both headers and the user it was served as, and the first such
/// request of each header name is logged (`{"msg":"user header look-alike ignored",…}`).
public struct DevelopmentCallerResolver: CallerResolver {
    let header: String
    let defaultUserId: String
    let lookalike: UserHeaderLookalike
    let log: LogSink?
    let logged: LoggedOnce

    /// A resolver reading `header`, falling back to `defaultUserId`; look-alike headers are logged to `log`.
    public init(header: String, defaultUserId: String, log: LogSink? = nil) {
        self.header = header
        self.defaultUserId = defaultUserId
        self.lookalike = UserHeaderLookalike(userHeader: header)
        self.log = log
        self.logged = LoggedOnce(limit: 32)
    }

    /// The header's user id if present and valid; the default when absent (with a warning when a
    /// look-alike header was sent); 400 when it breaks `UserIdRule` (the message states the rule, never
    /// echoes the value).
    public func resolve(_ request: Request) -> Result<Caller, APIError> {
        guard let given = request.header(header) else {
            guard let name = lookalike.find(in: request.head.headers) else {
                return .success(Caller(userId: defaultUserId))
            }
            let warning =
                "header \(name) is not the user header \(header) (auth.devUserHeader): "
                + "this request is the default user \(defaultUserId)"
            if let log, logged.first(name) {
                log.warn(
                    "user header look-alike ignored",
                    ["header": name, "userHeader": header, "userId": defaultUserId, "requestId": request.requestId])
            }
            return .success(Caller(userId: defaultUserId, warning: warning))
        }
        guard Caller.isValidUserId(given) else { return .failure(.invalidUser(header: header)) }
        return .success(Caller(userId: given))
    }
}

/// `auth.mode = none`: every request is the configured default user (local development only; the
/// server warns at start).
public struct FixedCallerResolver: CallerResolver {
    let userId: String

    /// Always `userId`.
    public init(userId: String) { self.userId = userId }

    /// The fixed caller.
    public func resolve(_ request: Request) -> Result<Caller, APIError> { .success(Caller(userId: userId)) }
}

extension Response {
    /// `self` marked for `caller`: its user id for the access log, and its warning, if any, as
    /// `Warning: 299 presignd "…"` (RFC 7234's form; the text holds only header-name and user-id
    /// characters, so it needs no escaping).
    func marked(for caller: Caller) -> Response {
        var response = self
        response.userId = caller.userId
        if let warning = caller.warning { response.headers.append(("Warning", "299 presignd \"\(warning)\"")) }
        return response
    }
}
