import HTTPClient

/// GETs of `https://host[:port]/path?query` URLs that SNS names (signing certificates, subscription
/// confirmations), over TLS with peer verification (`caFile`, else the system's store), bounded in time
/// and size. The URLs were checked against the host patterns first (`SigningCertPolicy`).
struct HTTPSFetcher: Sendable {
    /// What a fetch can fail with.
    struct Failure: Error, CustomStringConvertible {
        /// Why.
        let description: String
    }

    /// The client (no pooling: these fetches are rare).
    let client: HTTPClient

    /// A fetcher trusting `caFile` (empty: the system's store).
    init(caFile: String, timeoutMs: Int = 5_000) {
        client = HTTPClient(
            options: HTTPClientOptions(
                requestTimeoutMs: timeoutMs, connectTimeoutMs: timeoutMs, caFile: caFile.isEmpty ? nil : caFile,
                maxResponseBytes: 64 * 1024, maxIdleConnections: 0))
    }

    /// The body of a 2xx answer to a GET of `url`.
    func get(_ url: String) throws(Failure) -> [UInt8] {
        guard let (address, target) = Self.split(url) else { throw Failure(description: "not an https URL") }
        let response: HTTPResponse
        do throws(HTTPClientError) {
            response = try client.send(HTTPRequest(method: "GET", target: target), to: address)
        } catch {
            throw Failure(description: "GET \(address): \(error)")
        }
        guard (200...299).contains(response.status) else {
            throw Failure(description: "GET \(address): HTTP \(response.status)")
        }
        return response.body
    }

    /// The address and request target of an `https://` URL without a user (nil otherwise).
    static func split(_ url: String) -> (ServerAddress, String)? {
        guard url.hasPrefix("https://") else { return nil }
        let rest = url.dropFirst("https://".count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        var target = String(rest.dropFirst(authority.count).prefix { $0 != "#" })
        if target.isEmpty || target.hasPrefix("?") { target = "/" + target }
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        var host = String(authority)
        var port = 443
        if let colon = authority.lastIndex(of: ":") {
            guard let p = Int(authority[authority.index(after: colon)...]), (1...65535).contains(p) else { return nil }
            port = p
            host = String(authority[..<colon])
        }
        guard !host.isEmpty else { return nil }
        return (ServerAddress(usesTLS: true, host: host, port: port), target)
    }
}
