/// The whole, validated configuration of presignd.
///
/// Made by `ConfigLoader.load` from defaults < config file < environment < flags. Its
/// `description` is `redactedJSON()`, so printing it never shows a secret.
public struct PresigndConfig: Sendable, Equatable {
    /// Listening and HTTP limits.
    public var server: ServerConfig
    /// Logging.
    public var log: LogConfig
    /// HTTPS termination.
    public var tls: TLSConfig
    /// Caller identification.
    public var auth: AuthConfig
    /// Rate limits.
    public var limits: LimitsConfig
    /// The object store.
    public var s3: S3Config
    /// URL lifetimes.
    public var presign: PresignConfig
    /// Upload types, in file order.
    public var types: [UploadTypeConfig]
    /// The database.
    public var records: RecordsConfig
    /// The signature explainer's route.
    public var explain: ExplainConfig = ExplainConfig()
    /// Compatibility routes (apps' own paths and envelopes); off by default.
    public var compat = CompatConfig()
    /// Uppy Companion's S3 routes (multipart uploads, presigned POST).
    public var uppy = UppyConfig()
    /// The native multipart API for apps (`POST /uploads`).
    public var multipart = MultipartConfig()
    /// The store's own upload events (RGW push, MinIO webhook, AWS through SNS) and the reconciler.
    public var events = EventsConfig()
    /// Outbound webhooks to the apps' own servers; off unless an endpoint is configured.
    public var webhooks = WebhooksConfig()
    /// The malware scan before publishing (`types.<T>.scan`): where clamd listens and its bounds.
    public var scan = ScanConfig()
    /// Browser origins allowed to call the API.
    public var cors = CORSConfig()

    /// A configuration from its sections; unvalidated (use `ConfigLoader` for checked values).
    public init(
        server: ServerConfig = ServerConfig(), log: LogConfig = LogConfig(), auth: AuthConfig = AuthConfig(),
        s3: S3Config = S3Config(), presign: PresignConfig = PresignConfig(), types: [UploadTypeConfig] = [],
        records: RecordsConfig = RecordsConfig(), limits: LimitsConfig = LimitsConfig(), tls: TLSConfig = TLSConfig()
    ) {
        self.server = server
        self.tls = tls
        self.log = log
        self.auth = auth
        self.limits = limits
        self.s3 = s3
        self.presign = presign
        self.types = types
        self.records = records
    }

    /// The upload type called `name` (exact match), if configured.
    public func type(named name: String) -> UploadTypeConfig? {
        types.first { $0.name == name }
    }

    /// The built-in defaults (config/presignd.json), with no file, environment or flags applied.
    ///
    /// It has no static S3 keys (only the environment gives those): the server run with it as it is
    /// asks the credential chain at start (`s3.credentialSources`).
    public static let defaults: PresigndConfig = {
        var builder = ConfigLoader.defaultsBuilder()
        let config = builder.finish()
        precondition(builder.problems.isEmpty, "built-in defaults are invalid: \(builder.problems)")
        return config
    }()
}
