import Crypto

/// The `events` section: the store's own upload events (Ceph RGW's bucket-notification push, MinIO's
/// webhook, AWS S3 through an SNS HTTPS subscription), which record an upload whose client never
/// confirmed it, and the reconciler's sweep for events that were lost. Off unless `enabled`.
public struct EventsConfig: Sendable, Equatable {
    /// Whether the event routes, their processor and the reconciler run.
    public var enabled: Bool
    /// The path the routes are under: `{path}/rgw`, `{path}/minio`, `{path}/sns`.
    public var path: String
    /// The shared secret of RGW's push (the topic's `OpaqueData`) and MinIO's webhook (its auth token);
    /// environment or file only. Without it the RGW and MinIO routes are not served.
    public var secret: Secret?
    /// The SNS topics whose messages are taken (`arn:aws:sns:…`); empty: the SNS route is not served.
    public var snsTopicArns: [String]
    /// Host patterns a `SigningCertURL` or `SubscribeURL` must match (`*` one DNS label; a pattern may
    /// name a port, and then only that port is allowed).
    public var snsCertificateHosts: [String]
    /// A PEM file of the CAs trusted when fetching SNS certificates and confirming subscriptions; empty:
    /// the system's store.
    public var snsCaFile: String
    /// How long after its arrival an event records its upload (the client's own confirmation, which
    /// carries its metadata, usually comes first), in milliseconds.
    public var recordDelayMs: Int
    /// How often the processor looks for due events when none arrives, in milliseconds.
    public var processIntervalMs: Int
    /// How often the reconciler sweeps the upload prefixes, in milliseconds (0: never).
    public var reconcileIntervalMs: Int
    /// Objects younger than this are left to their confirmation and their event, in seconds.
    public var reconcileMinAgeSeconds: Int
    /// Most pages of 1,000 keys one reconciler pass reads.
    public var reconcileMaxPages: Int
    /// The RGW topic `presignd notifications setup` creates.
    public var topicName: String
    /// The URL RGW pushes to, as `presignd notifications setup` gives it to the topic
    /// (`http://presignd.internal:8080/events/rgw`).
    public var pushEndpoint: String

    /// The settings; every argument defaults to the documented default.
    public init(
        enabled: Bool = false, path: String = "/events", secret: Secret? = nil, snsTopicArns: [String] = [],
        snsCertificateHosts: [String] = ["sns.*.amazonaws.com"], snsCaFile: String = "", recordDelayMs: Int = 5000,
        processIntervalMs: Int = 1000, reconcileIntervalMs: Int = 300_000, reconcileMinAgeSeconds: Int = 60,
        reconcileMaxPages: Int = 10, topicName: String = "presignd-uploads", pushEndpoint: String = ""
    ) {
        self.enabled = enabled
        self.path = path
        self.secret = secret
        self.snsTopicArns = snsTopicArns
        self.snsCertificateHosts = snsCertificateHosts
        self.snsCaFile = snsCaFile
        self.recordDelayMs = recordDelayMs
        self.processIntervalMs = processIntervalMs
        self.reconcileIntervalMs = reconcileIntervalMs
        self.reconcileMinAgeSeconds = reconcileMinAgeSeconds
        self.reconcileMaxPages = reconcileMaxPages
        self.topicName = topicName
        self.pushEndpoint = pushEndpoint
    }
}
