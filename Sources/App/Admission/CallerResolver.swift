import Config
import HTTPServer

/// Who is asking: the user id that owns intents and records.
public struct Caller: Sendable, Equatable {
    /// The user id, safe for use in object keys (`UserIdRule`: `[a-z0-9_-]`, at most 64 bytes).
    public let userId: String

    /// A caller with `userId`.
    public init(userId: String) { self.userId = userId }

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
public struct DevelopmentCallerResolver: CallerResolver {
    let header: String
    let defaultUserId: String

    /// A resolver reading `header`, falling back to `defaultUserId`.
    public init(header: String, defaultUserId: String) {
        self.header = header
        self.defaultUserId = defaultUserId
    }

    /// The header's user id if present and valid; the default when absent; 400 when it breaks
    /// `UserIdRule` (the message states the rule, never echoes the value).
    public func resolve(_ request: Request) -> Result<Caller, APIError> {
        guard let given = request.header(header) else { return .success(Caller(userId: defaultUserId)) }
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
