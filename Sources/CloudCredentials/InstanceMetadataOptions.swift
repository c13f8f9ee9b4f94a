/// Settings of the EC2 instance metadata (IMDSv2) provider beyond its environment variables.
public struct InstanceMetadataOptions: Sendable, Equatable {
    /// The service's base URL; nil: `AWS_EC2_METADATA_SERVICE_ENDPOINT`, else
    /// `http://[fd00:ec2::254]` when `AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE` is `IPv6`, else
    /// `http://169.254.169.254`.
    public var endpoint: String?
    /// Fall back to IMDSv1 (no session token) when the token request is refused (403, 404, 405) or
    /// times out. Off: IMDSv1 answers anyone who can make the instance fetch a URL (SSRF).
    public var allowV1Fallback: Bool
    /// The lifetime asked for each session token (`X-aws-ec2-metadata-token-ttl-seconds`), 1...21600.
    public var tokenTTLSeconds: Int
    /// Time-outs and retries: 1 s to connect, 2 s per exchange, one retry (off EC2 the address
    /// does not answer, and a start-up should not wait long to learn it).
    public var remote: RemoteProviderOptions

    /// Options; every argument defaults to the documented default.
    public init(
        endpoint: String? = nil, allowV1Fallback: Bool = false, tokenTTLSeconds: Int = 21_600,
        remote: RemoteProviderOptions = RemoteProviderOptions(requestTimeoutMs: 2000, maxRetries: 1)
    ) {
        precondition((1...21_600).contains(tokenTTLSeconds), "the IMDS token TTL is 1...21600 s")
        self.endpoint = endpoint
        self.allowV1Fallback = allowV1Fallback
        self.tokenTTLSeconds = tokenTTLSeconds
        self.remote = remote
    }
}
