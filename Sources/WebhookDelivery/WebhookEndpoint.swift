import HTTPClient
import Webhooks

/// One endpoint the deliverer sends to: its name (the outbox's `endpoint`) and where it is.
public struct WebhookEndpoint: Sendable, Equatable {
    /// The name.
    public let name: String
    /// The URL.
    public let url: WebhookURL

    /// An endpoint.
    public init(name: String, url: WebhookURL) {
        self.name = name
        self.url = url
    }

    /// The HTTP client's address of the URL.
    var address: ServerAddress { ServerAddress(usesTLS: url.usesTLS, host: url.host, port: url.port) }
}
