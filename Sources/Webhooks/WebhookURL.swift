/// An endpoint URL split for the HTTP client: `http` or `https`, the host, the port, and the request target.
/// Pure.
public struct WebhookURL: Sendable, Equatable, CustomStringConvertible {
    /// True for `https`.
    public let usesTLS: Bool
    /// The host: a name, an IPv4 address, or an IPv6 address in brackets.
    public let host: String
    /// The port (the scheme's default when the URL names none).
    public let port: Int
    /// The path and query, as given (`/` when the URL has no path).
    public let target: String

    /// The parts of `text`: `http[s]://host[:port][/path][?query]`, no user info, no fragment, nothing but
    /// visible ASCII; `.invalidURL` otherwise.
    public init(parsing text: String) throws(WebhookError) {
        let lower = text.lowercased()
        let rest: Substring
        if lower.hasPrefix("https://") {
            usesTLS = true
            rest = text.dropFirst(8)
        } else if lower.hasPrefix("http://") {
            usesTLS = false
            rest = text.dropFirst(7)
        } else {
            throw .invalidURL("it must start with http:// or https://")
        }
        guard text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else {
            throw .invalidURL("it may hold only visible ASCII (percent-encode the rest)")
        }
        guard !text.contains("#") else { throw .invalidURL("it may not have a fragment") }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard !authority.contains("@") else { throw .invalidURL("it may not hold a user name or password") }
        var hostPart = authority
        var portNumber = usesTLS ? 443 : 80
        if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
            hostPart = authority[..<colon]
            guard let number = Int(authority[authority.index(after: colon)...]), (1...65535).contains(number) else {
                throw .invalidURL("its port must be 1-65535")
            }
            portNumber = number
        }
        guard !hostPart.isEmpty else { throw .invalidURL("it must name a host") }
        host = String(hostPart).lowercased()
        port = portNumber
        let tail = rest[authorityEnd...]
        target = tail.isEmpty ? "/" : tail.hasPrefix("?") ? "/" + tail : String(tail)
    }

    /// The URL without its query (which may hold a token): for logs and the operator's list.
    public var description: String {
        let scheme = usesTLS ? "https" : "http"
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let defaultPort = usesTLS ? 443 : 80
        return "\(scheme)://\(host)\(port == defaultPort ? "" : ":\(port)")\(path)"
    }
}
