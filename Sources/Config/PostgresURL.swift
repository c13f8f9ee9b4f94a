/// A PostgreSQL connection URL (`postgres://…` or `postgresql://…`) with what keeps its password out of
/// every message: the redacted form and the password in each form it may appear in.
///
/// libpq checks the rest of the URL when the store opens it. `description` and reflection show only the
/// redacted form.
public struct PostgresURL: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    /// The URL as written, handed to libpq; never printed.
    public let connectionString: String
    /// `redact(connectionString)`, and any other place the password's text appears in it replaced too.
    public let redacted: String
    /// The password in every form it may appear in a message (as written and percent-decoded): what the
    /// store scrubs from libpq's messages.
    package let passwords: [String]

    /// Checks that `url` is a `postgres://` or `postgresql://` URL with something after the scheme;
    /// otherwise throws one `records.url` problem without the password.
    public init(_ url: String) throws(ConfigError) {
        guard url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") else {
            throw RecordsLocation.problem("must be a postgres:// or postgresql:// URL")
        }
        guard !url.hasSuffix("://") else {
            throw RecordsLocation.problem("PostgreSQL URL without a host or database; use postgres://user@host:port/db")
        }
        connectionString = url
        passwords = Self.passwords(in: url)
        var shown = Self.redact(url)
        for password in passwords { shown = shown.replacing(password, with: "<redacted>") }
        redacted = shown
    }

    /// The redacted URL.
    public var description: String { redacted }

    /// A mirror showing only the redacted URL.
    public var customMirror: Mirror { Mirror(self, children: ["redacted": redacted], displayStyle: .struct) }

    /// Whether both hold the same URL.
    public static func == (lhs: PostgresURL, rhs: PostgresURL) -> Bool { lhs.connectionString == rhs.connectionString }

    /// `message` with every occurrence of the password (as written or percent-decoded) replaced by
    /// `<redacted>`, and without trailing line breaks (libpq ends its messages with one).
    public func scrub(_ message: String) -> String {
        var text = message
        for password in passwords { text = text.replacing(password, with: "<redacted>") }
        while let last = text.last, last == "\n" || last == "\r" { text.removeLast() }
        return text
    }

    /// `url` with the password of its user-info (`user:password@`, RFC 3986 section 3.2.1) and of any
    /// `password=` query parameter (libpq's, any case) replaced by `<redacted>`; a URL without `://` is
    /// returned unchanged. The one redaction of a records URL.
    public static func redact(_ url: String) -> String {
        guard let parts = Parts(url) else { return url }
        var result = String(url[..<parts.authorityStart])
        if let password = parts.password {
            result +=
                url[parts.authorityStart..<password.lowerBound] + "<redacted>"
                + url[password.upperBound..<parts.authorityEnd]
        } else {
            result += url[parts.authorityStart..<parts.authorityEnd]
        }
        var rest = url[parts.authorityEnd...]
        var fragment = ""
        if let hash = rest.firstIndex(of: "#") {
            fragment = String(rest[hash...])
            rest = rest[..<hash]
        }
        guard let question = rest.firstIndex(of: "?") else { return result + rest + fragment }
        result += rest[...question]
        let pairs = rest[rest.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false)
        result += pairs.map { pair -> String in
            let name = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            return name.lowercased() == "password" ? name + "=<redacted>" : String(pair)
        }.joined(separator: "&")
        return result + fragment
    }

    /// The non-empty passwords `url` holds (user-info and `password=` parameters), raw and percent-decoded.
    private static func passwords(in url: String) -> [String] {
        guard let parts = Parts(url) else { return [] }
        var found: [String] = parts.password.map { [String(url[$0])] } ?? []
        var rest = url[parts.authorityEnd...]
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        if let question = rest.firstIndex(of: "?") {
            for pair in rest[rest.index(after: question)...].split(separator: "&") {
                let halves = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                if halves.count == 2, halves[0].lowercased() == "password" { found.append(String(halves[1])) }
            }
        }
        found += found.compactMap(percentDecoded).filter { !found.contains($0) }
        return found.filter { !$0.isEmpty }
    }

    /// Where the authority and its password lie in a URL.
    private struct Parts {
        /// Just after `://`.
        let authorityStart: String.Index
        /// The first `/`, `?` or `#` after the authority, or the end.
        let authorityEnd: String.Index
        /// The password of the user-info (between the first `:` and the last `@`), if any.
        let password: Range<String.Index>?

        /// The parts of `url`, or nil without `://`.
        init?(_ url: String) {
            guard let scheme = url.firstRange(of: "://") else { return nil }
            authorityStart = scheme.upperBound
            authorityEnd = url[authorityStart...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? url.endIndex
            let authority = url[authorityStart..<authorityEnd]
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                password = url.index(after: colon)..<at
            } else {
                password = nil
            }
        }
    }

    /// Decodes `%XX` escapes; nil when there are none or they are malformed.
    private static func percentDecoded(_ text: String) -> String? {
        guard text.contains("%") else { return nil }
        var bytes: [UInt8] = []
        var remaining = Array(text.utf8)[...]
        while let byte = remaining.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard remaining.count >= 2, let high = hexValue(remaining.removeFirst()),
                let low = hexValue(remaining.removeFirst())
            else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The value of one hex digit.
    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
