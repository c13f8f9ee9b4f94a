/// A source of credentials: the environment, STS, a file, a metadata service.
///
/// `fetch` blocks (files, sockets with short time-outs and bounded retries): call it on a
/// background thread, never on an event loop.
public protocol CredentialsProvider: Sendable {
    /// A short name for logs and errors, e.g. `web identity`.
    var name: String { get }

    /// Fresh credentials, or `CredentialsError.notConfigured` when this provider is not set up
    /// here (the chain then tries the next), or another error when it is set up but fails.
    func fetch() throws(CredentialsError) -> ProvidedCredentials

    /// What the start-up log should warn about this provider's setup (a file its variables name that
    /// does not exist); names and paths only, never a value. The chain asks each provider it tries.
    func startupWarnings() -> [String]
}

extension CredentialsProvider {
    /// No warnings: most providers have nothing to say beyond `fetch`'s answer.
    public func startupWarnings() -> [String] { [] }
}
