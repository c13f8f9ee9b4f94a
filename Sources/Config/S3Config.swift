import Crypto

/// The `s3` section: the object store and the credentials that sign for it.
public struct S3Config: Sendable, Equatable {
    /// Base URL the server itself calls (HEAD, COPY, DELETE): `http(s)://host[:port]`.
    public var endpoint: String
    /// Base URL put into presigned URLs for clients; nil (empty in the file) means `endpoint`.
    public var publicEndpoint: String?
    /// Signing region, e.g. `us-east-1`, `kr-standard`.
    public var region: String
    /// Bucket that receives uploads.
    public var bucket: String
    /// Where the bucket goes in a URL.
    public enum Addressing: String, Sendable, CaseIterable {
        /// `host/bucket/key`.
        case path
        /// `bucket.host/key`.
        case virtual
        /// Virtual-hosted when the bucket name allows it, else path.
        case auto
    }

    /// Where the bucket goes in a URL.
    public var addressing: Addressing
    /// The storage service; its preset sets `endpoint`, `region` and `addressing` unless the
    /// operator sets them (`S3Config+Provider.swift`).
    public var provider: Provider
    /// The Cloudflare account id that makes the `r2` preset's endpoint.
    public var accountId: String
    /// When set, the server's own calls connect to this host (name or IP) whatever host they address;
    /// `Host`, SNI and the certificate check keep the addressed one.
    public var connectHost: String?
    /// The credential providers tried at start, in this order (`CredentialSource` names).
    public var credentialSources: [String]
    /// The STS endpoint of the web-identity provider; nil: `AWS_ENDPOINT_URL_STS`, else regional.
    public var stsEndpoint: String?
    /// Whether the IMDS provider may fall back to IMDSv1 (no session token).
    public var imdsV1Fallback: Bool
    /// Seconds before temporary credentials expire when the refresh starts (plus up to
    /// `refreshJitterSeconds` at random).
    public var refreshBeforeExpirySeconds: Int
    /// The most random seconds by which a refresh starts earlier still.
    public var refreshJitterSeconds: Int
    /// The shortest URL lifetime issued when the credentials' remaining life shortens a URL; with
    /// less left, issuing answers 503.
    public var minimumUrlLifetimeSeconds: Int
    /// Access key id (not secret; may come from the file or the environment).
    public var accessKeyId: String
    /// Secret access key; only from the environment.
    public var secretAccessKey: Secret?
    /// Session token of temporary credentials; only from the environment.
    public var sessionToken: Secret?
    /// Timeout of one call to the store, in milliseconds.
    public var requestTimeoutMs: Int
    /// Retries of a failed idempotent call to the store.
    public var maxRetries: Int
    /// PEM file of the CA(s) trusted for an https `endpoint`; nil (empty in the file): the system's store.
    public var caFile: String?
    /// Largest difference between this server's clock and the storage server's (its `Date` header)
    /// with which `/readyz` still reports ready, in seconds.
    public var maxClockSkewSeconds: Int
    /// Whether a confirmation checks the object with a signed HEAD.
    public var verifyUploads: Bool
    /// What a start does about the signed HEAD of the bucket it makes with the configured credentials.
    public enum StartupCheck: String, Sendable, CaseIterable {
        /// Start anyway; a missing bucket, refused credentials or unreachable storage is logged as an
        /// error and fails `/readyz` until the bucket answers.
        case warn
        /// Do not start (exit 1) when the bucket is missing or the credentials are refused.
        case fail
        /// No check at start.
        case off
    }

    /// What a start does about the signed HEAD of the bucket (`s3.startupCheck`).
    public var startupCheck: StartupCheck
    /// The digests storage itself checks on upload (`content-md5`, `sha256`; `none`); empty: the
    /// provider preset's (`storeChecksums`, docs/object-store.md's table).
    public var checksums: [String]

    /// The endpoint clients are given: `publicEndpoint`, or `endpoint` when that is unset.
    public var effectivePublicEndpoint: String { publicEndpoint ?? endpoint }

    /// S3 settings; every argument defaults to the documented default.
    public init(
        endpoint: String = "http://127.0.0.1:9000", publicEndpoint: String? = nil, region: String = "us-east-1",
        bucket: String = "uploads", addressing: Addressing = .path, accessKeyId: String = "",
        secretAccessKey: Secret? = nil, sessionToken: Secret? = nil, requestTimeoutMs: Int = 5000,
        maxRetries: Int = 2, verifyUploads: Bool = true, startupCheck: StartupCheck = .warn, caFile: String? = nil,
        maxClockSkewSeconds: Int = 300,
        provider: Provider = .custom, accountId: String = "", connectHost: String? = nil,
        credentialSources: [String] = CredentialSource.allCases.map(\.rawValue), stsEndpoint: String? = nil,
        imdsV1Fallback: Bool = false, refreshBeforeExpirySeconds: Int = 900, refreshJitterSeconds: Int = 180,
        minimumUrlLifetimeSeconds: Int = 60, checksums: [String] = []
    ) {
        self.provider = provider
        self.accountId = accountId
        self.connectHost = connectHost
        self.credentialSources = credentialSources
        self.stsEndpoint = stsEndpoint
        self.imdsV1Fallback = imdsV1Fallback
        self.refreshBeforeExpirySeconds = refreshBeforeExpirySeconds
        self.refreshJitterSeconds = refreshJitterSeconds
        self.minimumUrlLifetimeSeconds = minimumUrlLifetimeSeconds
        self.maxClockSkewSeconds = maxClockSkewSeconds
        self.endpoint = endpoint
        self.publicEndpoint = publicEndpoint
        self.region = region
        self.bucket = bucket
        self.addressing = addressing
        self.accessKeyId = accessKeyId
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.requestTimeoutMs = requestTimeoutMs
        self.maxRetries = maxRetries
        self.caFile = caFile
        self.verifyUploads = verifyUploads
        self.startupCheck = startupCheck
        self.checksums = checksums
    }
}
