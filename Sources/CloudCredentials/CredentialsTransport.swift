import HTTPClient

/// Sends one HTTP request and reads the whole answer: what the remote providers need of a client.
///
/// `HTTPClient` is the real one; tests wrap it (to refuse any address but loopback, for one).
public protocol CredentialsTransport: Sendable {
    /// Sends `request` to `address`, bounded by the transport's own time-outs.
    func send(_ request: HTTPRequest, to address: ServerAddress) throws(HTTPClientError) -> HTTPResponse
}

extension HTTPClient: CredentialsTransport {}
