import HTTPClient
import SigV4

extension ServerAddress {
    /// The address of an endpoint (its scheme, host and effective port).
    public init(endpoint: Endpoint) {
        self.init(usesTLS: endpoint.scheme == "https", host: endpoint.host, port: endpoint.port ?? endpoint.defaultPort)
    }
}
