/// Where clamd listens: a TCP host and port, or a Unix socket (`scan.clamdAddress`).
public enum ClamdAddress: Sendable, Equatable, CustomStringConvertible {
    /// `tcp://host:port` (an IPv6 literal in brackets).
    case tcp(host: String, port: Int)
    /// `unix:/path`.
    case unix(path: String)

    /// The address written as `tcp://host:port` or `unix:/path`; nil when it is neither.
    public init?(parsing text: String) {
        if text.hasPrefix("unix:") {
            let path = String(text.dropFirst("unix:".count))
            guard path.hasPrefix("/"), path.count > 1, path.utf8.count < 108 else { return nil }
            self = .unix(path: path)
            return
        }
        guard text.hasPrefix("tcp://") else { return nil }
        let rest = text.dropFirst("tcp://".count)
        guard let colon = rest.lastIndex(of: ":"), colon != rest.startIndex,
            let port = Int(rest[rest.index(after: colon)...]), (1...65_535).contains(port)
        else { return nil }
        var host = String(rest[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { return nil }
        self = .tcp(host: host, port: port)
    }

    /// The address as `scan.clamdAddress` writes it.
    public var description: String {
        switch self {
        case .tcp(let host, let port): host.contains(":") ? "tcp://[\(host)]:\(port)" : "tcp://\(host):\(port)"
        case .unix(let path): "unix:\(path)"
        }
    }
}
