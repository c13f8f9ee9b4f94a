/// Where a connection goes: scheme, host and port. The key of the connection pool.
public struct ServerAddress: Sendable, Hashable, CustomStringConvertible {
    /// True for HTTPS.
    public var usesTLS: Bool
    /// A DNS name, an IPv4 address, or an IPv6 address in brackets (`[::1]`); also the name the
    /// server certificate must match.
    public var host: String
    /// The TCP port.
    public var port: Int

    /// An address from its parts.
    public init(usesTLS: Bool, host: String, port: Int) {
        precondition((1...65535).contains(port), "port out of range")
        self.usesTLS = usesTLS
        self.host = host
        self.port = port
    }

    /// `https://host:port`.
    public var description: String { "\(usesTLS ? "https" : "http")://\(host):\(port)" }

    /// `host[:port]`, the port omitted when it is the scheme's default: the `Host` header value.
    public var authority: String { port == (usesTLS ? 443 : 80) ? host : "\(host):\(port)" }

    /// The host without IPv6 brackets, as `getaddrinfo` and the certificate check want it.
    var bareHost: String {
        if host.hasPrefix("[") && host.hasSuffix("]") { return String(host.dropFirst().dropLast()) }
        return host
    }

    /// True when the host is an IPv4 or IPv6 literal (checked against the certificate's IP
    /// addresses, and never sent as SNI).
    var isIPLiteral: Bool {
        if host.hasPrefix("[") { return true }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        return labels.count == 4
            && labels.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }
    }
}
