import HTTPClient

/// The errors of the CloudCredentials module; each names the provider and says what went wrong,
/// never with a key, a token or a file's contents.
public enum CredentialsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The provider is not set up here (its variables are unset, its files absent): the chain moves on.
    case notConfigured(provider: String, reason: String)
    /// The provider is set up, wrongly: a variable or profile that cannot work; the reason says which.
    case invalidConfiguration(provider: String, reason: String)
    /// A file the provider needs (a token, a credentials file) cannot be read.
    case file(provider: String, path: String, reason: String)
    /// The credentials service could not be reached or broke off, after the retries.
    case transport(provider: String, HTTPClientError)
    /// The credentials service refused: its status, and the `Code` and `Message` of its error body
    /// when it had them (the message shortened to printable ASCII).
    case service(provider: String, status: Int, code: String?, message: String?)
    /// The answer could not be read as credentials; the reason says what was wrong, never a value.
    case malformedResponse(provider: String, reason: String)
    /// The answer held credentials that had already expired (epoch seconds).
    case expired(provider: String, expiration: Int64, now: Int64)
    /// No provider of the chain is set up; one reason per provider skipped.
    case noCredentials(skipped: [String])

    /// The provider the error is about (`chain` for `noCredentials`).
    public var provider: String {
        switch self {
        case .notConfigured(let provider, _), .invalidConfiguration(let provider, _), .file(let provider, _, _),
            .transport(let provider, _), .service(let provider, _, _, _), .malformedResponse(let provider, _),
            .expired(let provider, _, _):
            return provider
        case .noCredentials:
            return "chain"
        }
    }

    /// One line for a log.
    public var description: String {
        switch self {
        case .notConfigured(let provider, let reason):
            return "\(provider): not configured: \(reason)"
        case .invalidConfiguration(let provider, let reason):
            return "\(provider): \(reason)"
        case .file(let provider, let path, let reason):
            return "\(provider): cannot read \(path): \(reason)"
        case .transport(let provider, let error):
            return "\(provider): \(error)"
        case .service(let provider, let status, let code, let message):
            var text = "\(provider): HTTP \(status)"
            if let code { text += " \(code)" }
            if let message { text += ": \(message)" }
            return text
        case .malformedResponse(let provider, let reason):
            return "\(provider): malformed answer: \(reason)"
        case .expired(let provider, let expiration, let now):
            return "\(provider): the credentials received expired \(now - expiration) s ago (at \(expiration))"
        case .noCredentials(let skipped):
            return "no credentials: " + (skipped.isEmpty ? "no provider" : skipped.joined(separator: "; "))
        }
    }

    /// True when trying again soon may succeed: a timeout or broken connection, 5xx, 429, and the
    /// throttling and identity-provider codes STS answers with.
    var isRetryable: Bool {
        switch self {
        case .transport(_, let error):
            return error.isRetryable
        case .service(_, let status, let code, _):
            if status >= 500 || status == 429 { return true }
            guard let code else { return false }
            return Self.retryableCodes.contains(code)
        default:
            return false
        }
    }

    /// Error codes worth retrying whatever the status (STS sends throttling as 400).
    private static let retryableCodes: Set<String> = [
        "Throttling", "ThrottlingException", "RequestLimitExceeded", "IDPCommunicationError", "RequestTimeout",
        "ServiceUnavailable", "InternalFailure",
    ]
}
