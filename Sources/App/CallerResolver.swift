import HTTPServer

/// Who is asking: the user id that owns intents and records.
public struct Caller: Sendable, Equatable {
    /// The user id, safe for use in object keys (`[a-z0-9_-]`, at most 64 bytes).
    public let userId: String

    /// A caller with `userId`.
    public init(userId: String) { self.userId = userId }

    /// True when `s` may be a user id.
    public static func isValidUserId(_ s: String) -> Bool {
        let u = s.utf8
        guard !u.isEmpty, u.count <= 64 else { return false }
        for b in u {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"),
                UInt8(ascii: "-"):
                continue
            default: return false
            }
        }
        return true
    }
}

/// Finds the caller of a request, or the error response to send instead. The authentication issue
/// replaces the development resolver with a JWT/API-key one; handlers only see `Caller`.
public protocol CallerResolver: Sendable {
    /// The caller, or an error response (401, 400).
    func resolve(_ request: Request) -> Result<Caller, ResolveFailure>
}

/// A failed caller resolution, carrying the response to send.
public struct ResolveFailure: Error, Sendable {
    /// The response for the client.
    public let response: Response
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

    /// The header's user id if present and valid; the default when absent; 400 when malformed.
    public func resolve(_ request: Request) -> Result<Caller, ResolveFailure> {
        guard let given = request.header(header) else { return .success(Caller(userId: defaultUserId)) }
        guard Caller.isValidUserId(given) else {
            return .failure(
                ResolveFailure(response: APIError.error(400, "INVALID_USER", "the user id header is malformed")))
        }
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
    public func resolve(_ request: Request) -> Result<Caller, ResolveFailure> { .success(Caller(userId: userId)) }
}
