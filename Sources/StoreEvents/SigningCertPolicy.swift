/// Which `SigningCertURL`s (and `SubscribeURL`s) an SNS message may name: `https` only, no user, a host
/// matching one of `hostPatterns` and no port unless the matching pattern names that port (a test's
/// loopback `localhost:8443`; AWS's hosts have none), and (for certificates) a path ending in `.pem`. Pure.
///
/// A pattern is a host name in which `*` stands for one DNS label (`[a-z0-9-]+`): the default,
/// `sns.*.amazonaws.com`, is AWS's `sns.<region>.amazonaws.com`. Hosts compare case-insensitively.
public struct SigningCertPolicy: Sendable, Equatable {
    /// The allowed host patterns.
    public var hostPatterns: [String]

    /// AWS's signing hosts.
    public static let defaultHostPatterns = ["sns.*.amazonaws.com"]

    /// A policy allowing `hostPatterns`.
    public init(hostPatterns: [String] = defaultHostPatterns) {
        self.hostPatterns = hostPatterns.map { $0.lowercased() }
    }

    /// Why `url` is not an allowed signing certificate URL, or nil when it is.
    public func refusal(certificateURL url: String) -> String? {
        if let refusal = refusal(url: url) { return refusal }
        guard let path = Self.path(of: url), path.hasSuffix(".pem") else {
            return "the signing certificate URL does not name a .pem file"
        }
        return nil
    }

    /// Why `url` is not an https URL on an allowed host, or nil when it is.
    public func refusal(url: String) -> String? {
        guard url.hasPrefix("https://") else { return "the URL is not https" }
        let rest = url.dropFirst("https://".count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }.lowercased()
        guard !authority.contains("@") else { return "the URL names a user" }
        guard hostPatterns.contains(where: { Self.authority(authority, matches: $0) }) else {
            if authority.contains(":") { return "the URL names a port no host pattern allows" }
            return "the URL's host \(authority.prefix(64)) is not an allowed SNS host"
        }
        return nil
    }

    /// True when `authority` (`host` or `host:port`) matches `pattern`: the hosts label by label, and the
    /// port exactly; a pattern without a port allows no port in the URL (AWS's URLs name none).
    static func authority(_ authority: String, matches pattern: String) -> Bool {
        let (host, port) = split(authority)
        let (wantedHost, wantedPort) = split(pattern)
        guard port == wantedPort else { return false }
        if let port, port.isEmpty || !port.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            return false
        }
        return Self.host(host, matches: wantedHost)
    }

    /// `host:port` split at its last colon (no colon: no port).
    static func split(_ text: String) -> (host: String, port: String?) {
        guard let colon = text.lastIndex(of: ":") else { return (text, nil) }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    /// The path of an https URL (without query or fragment).
    static func path(of url: String) -> Substring? {
        guard url.hasPrefix("https://") else { return nil }
        let rest = url.dropFirst("https://".count)
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        return rest[slash...].prefix { $0 != "?" && $0 != "#" }
    }

    /// True when `host` matches `pattern` label by label (`*` one label of letters, digits and hyphens).
    static func host(_ host: String, matches pattern: String) -> Bool {
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        let wanted = pattern.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count == wanted.count else { return false }
        for (label, want) in zip(labels, wanted) {
            if want == "*" {
                guard !label.isEmpty, label.utf8.allSatisfy(Self.isLabelByte) else { return false }
            } else if label != want {
                return false
            }
        }
        return true
    }

    /// A lower-case letter, a digit or a hyphen.
    private static func isLabelByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || byte == UInt8(ascii: "-")
    }
}
