/// An object-store endpoint: scheme, host and optional port, with no path.
///
/// Examples: `http://127.0.0.1:9000` (MinIO, Ceph RGW on loopback),
/// `https://s3.ap-northeast-2.amazonaws.com`, `https://kr.object.ncloudstorage.com`,
/// `https://<account>.r2.cloudflarestorage.com`. The host is kept lower-cased; a port equal to the
/// scheme's default is dropped, so `https://h:443` and `https://h` are the same endpoint.
public struct Endpoint: Sendable, Equatable {
    /// `http` or `https`.
    public var scheme: String
    /// The host name, IPv4 address, or IPv6 address in brackets (`[::1]`), lower-cased.
    public var host: String
    /// The port when it is not the scheme's default.
    public var port: Int?

    /// Parses `url` (`scheme://host[:port]` with at most a trailing `/`).
    public init(parsing url: String) throws(SigV4Error) {
        let text = Array(url.utf8)
        guard let separator = Self.find(Array("://".utf8), in: text) else {
            throw .invalidEndpoint("\(url): no scheme (expected http:// or https://)")
        }
        let scheme = String(decoding: text[..<separator], as: UTF8.self).lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw .invalidEndpoint("\(url): scheme must be http or https")
        }
        var rest = text[(separator + 3)...]
        if rest.last == UInt8(ascii: "/") { rest = rest.dropLast() }
        if let bad = rest.first(where: { "/?#@ \\".utf8.contains($0) }) {
            throw .invalidEndpoint(
                "\(url): only scheme://host[:port] is allowed (found \"\(Character(Unicode.Scalar(bad)))\")")
        }
        let authority = Array(rest)
        var hostBytes = authority[...]
        var port: Int?
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else {
                throw .invalidEndpoint("\(url): unterminated IPv6 literal")
            }
            hostBytes = authority[...close]
            let inside = authority[1..<close]
            guard !inside.isEmpty,
                inside.allSatisfy({ Self.isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }),
                inside.contains(UInt8(ascii: ":"))
            else { throw .invalidEndpoint("\(url): malformed IPv6 literal") }
            let after = authority[(close + 1)...]
            if !after.isEmpty {
                guard after.first == UInt8(ascii: ":") else {
                    throw .invalidEndpoint("\(url): junk after IPv6 literal")
                }
                port = try Self.parsePort(after.dropFirst(), url: url)
            }
        } else {
            if let colon = authority.lastIndex(of: UInt8(ascii: ":")) {
                hostBytes = authority[..<colon]
                port = try Self.parsePort(authority[(colon + 1)...], url: url)
            }
            guard Self.isHostName(hostBytes) else { throw .invalidEndpoint("\(url): malformed host name") }
        }
        self.scheme = scheme
        self.host = String(decoding: hostBytes, as: UTF8.self).lowercased()
        self.port = port == Self.defaultPort(of: scheme) ? nil : port
    }

    /// The scheme's default port: 443 for https, 80 for http.
    public var defaultPort: Int { Self.defaultPort(of: scheme) }

    /// `host` or `host:port`: the value of the `Host` header that is signed and sent.
    public var authority: String {
        if let port { return "\(host):\(port)" }
        return host
    }

    /// True when the host is an IPv4 or IPv6 literal (such an endpoint cannot be virtual-hosted).
    public var isIPAddress: Bool {
        if host.hasPrefix("[") { return true }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        return labels.count == 4
            && labels.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }
    }

    /// True when buckets can become a sub-domain of the host: any DNS name, not an IP literal.
    var acceptsVirtualHosting: Bool { !isIPAddress }

    /// The default port of `scheme`.
    private static func defaultPort(of scheme: String) -> Int { scheme == "https" ? 443 : 80 }

    /// The first index of `needle` in `haystack`.
    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count)
        where haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return start
        }
        return nil
    }

    /// A decimal port in `1...65535`.
    private static func parsePort(_ digits: ArraySlice<UInt8>, url: String) throws(SigV4Error) -> Int {
        guard !digits.isEmpty, digits.count <= 5,
            digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else {
            throw .invalidEndpoint("\(url): malformed port")
        }
        let value = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        guard (1...65535).contains(value) else { throw .invalidEndpoint("\(url): port out of range") }
        return value
    }

    /// Letters, digits, `-` and `_` in non-empty dot-separated labels of at most 63 bytes.
    private static func isHostName(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard !bytes.isEmpty, bytes.count <= 253 else { return false }
        let labels = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return labels.allSatisfy { label in
            !label.isEmpty && label.count <= 63
                && label.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
        }
    }

    /// ASCII letter or digit.
    static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    /// ASCII hexadecimal digit.
    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F"))
    }
}
