import Config
import Logging
import ObjectStore

extension Application {
    /// The server's own storage client for `config`, with the credentials the server would use (the
    /// same chain, asked once; its log lines go to `log`): for command-line modes that call storage
    /// without serving (`presignd notifications setup`).
    public static func storageClient(
        config: PresigndConfig, environment: [String: String], nowSeconds: Int64, log: LogSink = LogSink()
    ) throws(AppError) -> S3Client {
        let env = AppEnvironment(nowMillis: { nowSeconds * 1000 }, newUUID: { "" }, variables: environment)
        let resolved = try resolveCredentials(config, env: env, log: log)
        let signers = try makeSigners(config.s3, credentials: resolved.provided.credentials)
        return makeStorage(config.s3, signers: signers, env: env)
    }
}
