/// The authenticated caller of a request.
public struct Principal: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// How the caller proved who it is.
    public enum Kind: Sendable, Equatable, Hashable {
        /// A user, by a bearer JWT; `subject` is the user id from the token's user claim.
        case user
        /// A server-to-server caller, by an API key; `subject` is the key's configured id.
        case apiKey
    }

    /// The user id (JWT) or the API key's id: 1 to 256 bytes of UTF-8, as the token or the
    /// configuration gave it (callers that put it in object keys must still check its characters).
    public let subject: String
    /// How the caller was identified.
    public let kind: Kind

    /// A principal.
    public init(subject: String, kind: Kind) {
        self.subject = subject
        self.kind = kind
    }

    /// `user:<subject>` or `apiKey:<subject>`, for logs.
    public var description: String {
        switch kind {
        case .user: return "user:\(subject)"
        case .apiKey: return "apiKey:\(subject)"
        }
    }
}
