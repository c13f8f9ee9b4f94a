/// Settings of the web-identity provider beyond its environment variables.
public struct WebIdentityOptions: Sendable, Equatable {
    /// The STS endpoint URL; nil: `AWS_ENDPOINT_URL_STS`, else `https://sts.{region}.amazonaws.com`
    /// (`.amazonaws.com.cn` for `cn-` regions), else the global `https://sts.amazonaws.com`.
    public var stsEndpoint: String?
    /// The STS region; nil: `AWS_REGION`, else `AWS_DEFAULT_REGION`.
    public var region: String?
    /// `DurationSeconds` to ask for, 900...43200; nil leaves the role's default (one hour).
    public var durationSeconds: Int?
    /// Time-outs and retries (STS is reached over TLS, so the exchange gets 5 s).
    public var remote: RemoteProviderOptions

    /// Options; every argument defaults to the documented default.
    public init(
        stsEndpoint: String? = nil, region: String? = nil, durationSeconds: Int? = nil,
        remote: RemoteProviderOptions = RemoteProviderOptions(requestTimeoutMs: 5000)
    ) {
        precondition(durationSeconds.map { (900...43_200).contains($0) } ?? true, "DurationSeconds is 900...43200")
        self.stsEndpoint = stsEndpoint
        self.region = region
        self.durationSeconds = durationSeconds
        self.remote = remote
    }
}
