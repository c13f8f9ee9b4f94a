import SigV4

/// Providers tried in order; the first that is configured decides.
///
/// A provider that is not configured (`notConfigured`) is skipped. The first configured provider's
/// answer is the chain's, success or failure: a configured provider that fails stops the chain
/// instead of falling through to another identity (a broken web-identity setup must not end up
/// with the node's instance role).
public struct CredentialsChain: Sendable {
    /// The providers, in order.
    public let providers: [any CredentialsProvider]

    /// A chain of `providers`.
    public init(providers: [any CredentialsProvider]) {
        self.providers = providers
    }

    /// The standard chain: static keys from the configuration, web identity, the shared files, the
    /// container agent, EC2 instance metadata.
    public static func standard(
        staticCredentials: Credentials?, staticOrigins: [String], context: CredentialsContext,
        options: CredentialsChainOptions = CredentialsChainOptions()
    ) -> CredentialsChain {
        CredentialsChain(providers: [
            StaticCredentialsProvider(credentials: staticCredentials, origins: staticOrigins),
            WebIdentityCredentialsProvider(context: context, options: options.webIdentity),
            SharedFilesCredentialsProvider(context: context),
            ContainerCredentialsProvider(context: context, options: options.container),
            InstanceMetadataCredentialsProvider(context: context, options: options.instanceMetadata),
        ])
    }

    /// Tries the providers in order (blocking: files and remote calls), gathering the start-up
    /// warnings of each provider tried.
    public func resolve() -> ChainResolution {
        var skipped: [String] = []
        var warnings: [String] = []
        for provider in providers {
            warnings += provider.startupWarnings()
            do {
                let provided = try provider.fetch()
                return ChainResolution(
                    skipped: skipped, provider: provider, result: .success(provided), warnings: warnings)
            } catch {
                if case .notConfigured(let name, let reason) = error {
                    skipped.append("\(name): \(reason)")
                    continue
                }
                return ChainResolution(
                    skipped: skipped, provider: provider, result: .failure(error), warnings: warnings)
            }
        }
        return ChainResolution(
            skipped: skipped, provider: nil, result: .failure(.noCredentials(skipped: skipped)), warnings: warnings)
    }
}
