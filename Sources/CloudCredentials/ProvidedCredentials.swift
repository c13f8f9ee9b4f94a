import SigV4

/// Credentials and where they came from.
public struct ProvidedCredentials: Sendable {
    /// The credentials (with their expiration when temporary).
    public var credentials: Credentials
    /// The provider's name, e.g. `web identity`.
    public var provider: String
    /// What supplied them, for the start-up log: variable names, file paths, profile and endpoint
    /// names, never a value of a key or token.
    public var origins: [String]

    /// Credentials with their provenance.
    public init(credentials: Credentials, provider: String, origins: [String]) {
        self.credentials = credentials
        self.provider = provider
        self.origins = origins
    }

    /// `provider (origin, origin)`: what the start-up log says.
    public var summary: String {
        origins.isEmpty ? provider : "\(provider) (\(origins.joined(separator: ", ")))"
    }
}
