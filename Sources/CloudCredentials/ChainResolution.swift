/// What the chain found: the providers it skipped and why, the one that answered and its result.
public struct ChainResolution: Sendable {
    /// `provider: reason` for each provider that was not configured, in chain order.
    public var skipped: [String]
    /// The first configured provider, which the refresher keeps asking; nil when none was.
    public var provider: (any CredentialsProvider)?
    /// Its credentials, or why there are none (`noCredentials` when no provider was configured).
    public var result: Result<ProvidedCredentials, CredentialsError>
    /// The start-up warnings of the providers tried (`CredentialsProvider.startupWarnings()`), in chain order.
    public var warnings: [String]

    /// A resolution from its parts.
    public init(
        skipped: [String], provider: (any CredentialsProvider)?, result: Result<ProvidedCredentials, CredentialsError>,
        warnings: [String] = []
    ) {
        self.skipped = skipped
        self.provider = provider
        self.result = result
        self.warnings = warnings
    }

    /// One line for the start-up log: the winner and its origins, or the failure; then the skipped
    /// providers. It names variables, paths and endpoints, never a key or token.
    public var summary: String {
        var text: String
        switch result {
        case .success(let provided):
            text = "credentials from \(provided.summary)"
            if let expiration = provided.credentials.expiration { text += ", expiring at \(expiration)" }
        case .failure(let error):
            text = "no credentials: \(error)"
        }
        if !skipped.isEmpty { text += "; skipped: " + skipped.joined(separator: "; ") }
        return text
    }
}
