import Crypto

/// The `webhooks` section: outbound webhooks to the apps' own servers (docs/webhooks.md). Off unless an
/// endpoint is configured (`url`, or `endpoints` in the config file).
public struct WebhooksConfig: Sendable, Equatable {
    /// The endpoint named `default` (`PRESIGN_WEBHOOKS_URL`); empty: none.
    public var url: String
    /// The event types `url` gets; empty: every type.
    public var events: [String]
    /// More endpoints, each with the events it wants (config file only).
    public var endpoints: [WebhookEndpointConfig]
    /// The signing secret, `whsec_` and base64 (environment or file only).
    public var secret: Secret?
    /// The secret being rotated out: while set, every request carries a signature with each.
    public var previousSecret: Secret?
    /// How long one attempt may take, connect to last response byte, in milliseconds.
    public var timeoutMs: Int
    /// Attempts per delivery, the first included; then it is `failed`.
    public var maxAttempts: Int
    /// The wait after the first failed attempt, doubling after each, in milliseconds.
    public var backoffBaseMs: Int
    /// The longest wait between two attempts, in milliseconds.
    public var backoffMaxMs: Int
    /// How long delivered and failed deliveries are kept, in hours.
    public var retentionHours: Int
    /// How often the deliverer looks for due deliveries when it found none, in milliseconds.
    public var pollIntervalMs: Int
    /// Requests in flight at once per endpoint.
    public var concurrency: Int

    /// The settings; every argument defaults to the documented default.
    public init(
        url: String = "", events: [String] = [], endpoints: [WebhookEndpointConfig] = [], secret: Secret? = nil,
        previousSecret: Secret? = nil, timeoutMs: Int = 10_000, maxAttempts: Int = 33, backoffBaseMs: Int = 5000,
        backoffMaxMs: Int = 3_600_000, retentionHours: Int = 72, pollIntervalMs: Int = 250, concurrency: Int = 4
    ) {
        self.url = url
        self.events = events
        self.endpoints = endpoints
        self.secret = secret
        self.previousSecret = previousSecret
        self.timeoutMs = timeoutMs
        self.maxAttempts = maxAttempts
        self.backoffBaseMs = backoffBaseMs
        self.backoffMaxMs = backoffMaxMs
        self.retentionHours = retentionHours
        self.pollIntervalMs = pollIntervalMs
        self.concurrency = concurrency
    }

    /// The name of the endpoint `url` gives.
    public static let defaultEndpointName = "default"

    /// Every configured endpoint: `url`'s (named `default`) first, then `endpoints`.
    public var allEndpoints: [WebhookEndpointConfig] {
        let first = url.isEmpty ? [] : [WebhookEndpointConfig(name: Self.defaultEndpointName, url: url, events: events)]
        return first + endpoints
    }

    /// True when some endpoint is configured.
    public var enabled: Bool { !allEndpoints.isEmpty }
}

/// One webhook endpoint: its name (in the outbox and the operator's list), its URL, the events it wants.
public struct WebhookEndpointConfig: Sendable, Equatable {
    /// `[a-z0-9_-]{1,64}`, unique.
    public var name: String
    /// `http://` or `https://`.
    public var url: String
    /// The event types it gets (`WebhookEventType` raw values); empty: every type.
    public var events: [String]

    /// An endpoint.
    public init(name: String, url: String, events: [String] = []) {
        self.name = name
        self.url = url
        self.events = events
    }

    /// Whether it wants events of `type`.
    public func wants(_ type: WebhookEventType) -> Bool { events.isEmpty || events.contains(type.rawValue) }
}

/// The types of outbound webhook events (docs/webhooks.md).
public enum WebhookEventType: String, Sendable, CaseIterable {
    /// A record was made (any confirming path).
    case completed = "upload.completed"
    /// A compatibility route's slot names another record now.
    case replaced = "upload.replaced"
    /// A record was deleted (`DELETE /images/{id}`, or replaced in a slot that deletes the previous one).
    case deleted = "upload.deleted"
    /// An uploaded object was refused at confirmation and deleted.
    case rejected = "upload.rejected"
    /// An intent expired unconfirmed and the janitor removed it.
    case expired = "upload.expired"
}
