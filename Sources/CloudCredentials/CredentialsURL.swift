import HTTPClient

/// An `http(s)://host[:port][/path][?query]` URL split into the address to connect to and the
/// request target. Pure; only what the providers' endpoints need (no user info, no fragment).
struct CredentialsURL: Sendable, Equatable {
    /// Scheme, host and port.
    let address: ServerAddress
    /// `/path[?query]`, percent-encoded as given; `/` when the URL has no path.
    let target: String

    /// Parses `text`, the value of `name` (a variable or setting): an error is `.invalidConfiguration`
    /// of `provider` saying what is wrong (the URL itself is not secret).
    static func parse(_ text: String, provider: String, name: String) throws(CredentialsError) -> CredentialsURL {
        func fail(_ reason: String) -> CredentialsError {
            .invalidConfiguration(provider: provider, reason: "\(name) \(reason)")
        }
        let lower = text.lowercased()
        let usesTLS: Bool
        let rest: Substring
        if lower.hasPrefix("https://") {
            usesTLS = true
            rest = text.dropFirst(8)
        } else if lower.hasPrefix("http://") {
            usesTLS = false
            rest = text.dropFirst(7)
        } else {
            throw fail("must start with http:// or https://")
        }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var target = String(rest[authorityEnd...])
        if let hash = target.firstIndex(of: "#") { target = String(target[..<hash]) }
        if target.isEmpty || target.hasPrefix("?") { target = "/" + target }
        guard !authority.contains("@") else { throw fail("must not hold user information") }
        guard target.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else {
            throw fail("the path must be percent-encoded ASCII")
        }
        let host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw fail("an IPv6 host lacks its ]") }
            host = authority[...close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw fail("unexpected text after the IPv6 host") }
                portText = after.dropFirst()
            }
            let inner = host.dropFirst().dropLast()
            guard !inner.isEmpty,
                inner.utf8.allSatisfy({ Self.isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == 0x2e })
            else { throw fail("not an IPv6 address in brackets") }
        } else {
            if let colon = authority.lastIndex(of: ":") {
                host = authority[..<colon]
                portText = authority[authority.index(after: colon)...]
            } else {
                host = authority
            }
            guard !host.isEmpty, host.utf8.count <= 253,
                host.utf8.allSatisfy({ Self.isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") })
            else { throw fail("the host must be a name, an IPv4 address or [IPv6]") }
        }
        var port = usesTLS ? 443 : 80
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let value = Int(portText), (1...65535).contains(value)
            else { throw fail("the port must be 1...65535") }
            port = value
        }
        return CredentialsURL(
            address: ServerAddress(usesTLS: usesTLS, host: host.lowercased(), port: port), target: target)
    }

    /// The target with `path` appended to the URL's own path (one `/` between them), without a query.
    func appending(path: String) -> String {
        var base = target
        if let query = base.firstIndex(of: "?") { base = String(base[..<query]) }
        while base.hasSuffix("/") { base.removeLast() }
        return base + (path.hasPrefix("/") ? path : "/" + path)
    }

    /// `A-Z a-z 0-9`.
    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
    }

    /// `0-9 A-F a-f`.
    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
    }
}
