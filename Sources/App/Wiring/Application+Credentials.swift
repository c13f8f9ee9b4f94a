import CloudCredentials
import Config
import Logging
import SigV4
import System

extension Application {
    /// The chain of `s3.credentialSources`, in that order, over `context`.
    static func credentialsChain(_ s3: S3Config, environment: [String: String], context: CredentialsContext)
        -> CredentialsChain
    {
        var providers: [any CredentialsProvider] = []
        for source in s3.chainSources {
            switch source {
            case .environment:
                var credentials: Credentials?
                if !s3.accessKeyId.isEmpty, let secret = s3.secretAccessKey {
                    credentials = Credentials(
                        accessKeyId: s3.accessKeyId, secretAccessKey: secret, sessionToken: s3.sessionToken)
                }
                providers.append(
                    StaticCredentialsProvider(
                        credentials: credentials,
                        origins: StaticCredentialsProvider.origins(
                            environment: environment,
                            accessKeyIdInConfigFile: keyIdFromConfigFile(s3, environment: environment))))
            case .webIdentity:
                providers.append(
                    WebIdentityCredentialsProvider(
                        context: context, options: WebIdentityOptions(stsEndpoint: s3.stsEndpoint)))
            case .sharedFiles:
                providers.append(SharedFilesCredentialsProvider(context: context))
            case .container:
                providers.append(ContainerCredentialsProvider(context: context))
            case .imds:
                providers.append(
                    InstanceMetadataCredentialsProvider(
                        context: context, options: InstanceMetadataOptions(allowV1Fallback: s3.imdsV1Fallback)))
            }
        }
        return CredentialsChain(providers: providers)
    }

    /// True when `s3.accessKeyId` can only have come from the config file: set, and named by no
    /// `PRESIGN_S3_ACCESS_KEY_ID(_FILE)` nor equal to the `AWS_ACCESS_KEY_ID` fallback.
    static func keyIdFromConfigFile(_ s3: S3Config, environment: [String: String]) -> Bool {
        guard !s3.accessKeyId.isEmpty else { return false }
        if environment["PRESIGN_S3_ACCESS_KEY_ID"] != nil || environment["PRESIGN_S3_ACCESS_KEY_ID_FILE"] != nil {
            return false
        }
        return environment["AWS_ACCESS_KEY_ID"] != s3.accessKeyId
    }

    /// The `AWS_*` key variables that are set but lose to ours (`PRESIGN_S3_*`, `_FILE` or the config
    /// file): names only, for the start-up log.
    static func shadowedAWSVariables(_ s3: S3Config, environment: [String: String]) -> [String] {
        let origins = StaticCredentialsProvider.origins(
            environment: environment, accessKeyIdInConfigFile: keyIdFromConfigFile(s3, environment: environment))
        guard origins.contains(where: { !$0.hasPrefix("AWS_") }) else { return [] }
        return ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"].filter {
            !(environment[$0] ?? "").isEmpty
        }
    }

    /// Step 0: asks the chain once (blocking: files, and remote providers with short time-outs and
    /// bounded retries) and logs what answered, what was skipped, the providers' warnings (a named
    /// shared file that does not exist) and which `AWS_*` variables our own names overrode (never a value). No provider configured is `refused` (exit 2); a configured
    /// provider that fails is a `startup` failure (exit 1).
    static func resolveCredentials(_ config: PresigndConfig, env: AppEnvironment, log: LogSink) throws(AppError)
        -> (provider: any CredentialsProvider, provided: ProvidedCredentials)
    {
        let context = CredentialsContext(
            environment: env.variables, now: { env.nowMillis() / 1000 }, random: { Int.random(in: 0...max(0, $0)) })
        let shadowed = shadowedAWSVariables(config.s3, environment: env.variables)
        if !shadowed.isEmpty {
            log.info(
                "static credentials: PRESIGN_S3_* win over AWS_*",
                [
                    "using": StaticCredentialsProvider.origins(
                        environment: env.variables,
                        accessKeyIdInConfigFile: keyIdFromConfigFile(config.s3, environment: env.variables)
                    ).joined(separator: ", "), "ignored": shadowed.joined(separator: ", "),
                ])
        }
        let resolution = credentialsChain(config.s3, environment: env.variables, context: context).resolve()
        for warning in resolution.warnings { log.warn("credentials warning", ["detail": warning]) }
        switch resolution.result {
        case .success(let provided):
            guard let provider = resolution.provider else { throw .startup("credentials", "no provider answered") }
            log.info(
                "credentials",
                [
                    "provider": provided.provider, "origins": provided.origins.joined(separator: ", "),
                    "temporary": provided.credentials.sessionToken != nil,
                    "expiration": provided.credentials.expiration.map(Int.init) ?? -1,
                    "skipped": resolution.skipped.joined(separator: "; "),
                ])
            return (provider, provided)
        case .failure(let error):
            if case .noCredentials = error {
                throw .refused(
                    "credentials",
                    "\(error) (set PRESIGN_S3_ACCESS_KEY_ID and PRESIGN_S3_SECRET_ACCESS_KEY, or run with a role; "
                        + "s3.credentialSources lists the providers asked)")
            }
            throw .startup("credentials", resolution.summary)
        }
    }
}
