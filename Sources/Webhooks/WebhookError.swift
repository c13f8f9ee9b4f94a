/// What the webhooks' pure pieces refuse: a secret or an endpoint URL that cannot be used.
public enum WebhookError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The secret is not `whsec_` and base64 of 16 to 1,024 bytes; the reason says which part (never the
    /// secret).
    case invalidSecret(String)
    /// The endpoint URL is not an `http` or `https` URL with a host; the reason says why.
    case invalidURL(String)

    /// One line for messages and logs.
    public var description: String {
        switch self {
        case .invalidSecret(let reason): return "invalid webhook secret: \(reason)"
        case .invalidURL(let reason): return "invalid webhook URL: \(reason)"
        }
    }
}
