import SigV4

/// A URL as a client requested it, taken apart without changing a byte: scheme, authority, path,
/// and the query pairs in their order (names and values still percent-encoded).
///
/// The explainer reads it the way storage does (each value decoded once, then URI-encoded again for
/// the canonical request), and also as written, to see how a client re-encoded or reordered it.
struct RequestURL: Sendable {
    /// One `name=value` pair of the query, as written.
    struct Pair: Sendable, Equatable {
        /// The name, as written.
        var rawName: String
        /// The value, as written (empty when the pair has no `=`).
        var rawValue: String
        /// The name decoded once.
        var name: String { PercentCoding.decode(rawName) }
        /// The value decoded once (what storage reads).
        var value: String { PercentCoding.decode(rawValue) }
    }

    /// `http` or `https`.
    var scheme: String
    /// `host[:port]`, lower-cased, without the scheme's default port.
    var authority: String
    /// The path as written, `/` when empty.
    var rawPath: String
    /// The query pairs in URL order.
    var pairs: [Pair]

    /// Splits `url` (`scheme://authority/path?query#fragment`); nil when it is not an http(s) URL with a host.
    init?(_ url: String) {
        let text = Array(url.utf8)
        guard let colon = text.firstIndex(of: UInt8(ascii: ":")), colon + 2 < text.count,
            text[colon + 1] == UInt8(ascii: "/"), text[colon + 2] == UInt8(ascii: "/")
        else { return nil }
        let scheme = String(decoding: text[..<colon], as: UTF8.self).lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        let rest = text[(colon + 3)...]
        let authorityEnd =
            rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? rest.endIndex
        var authority = String(decoding: rest[..<authorityEnd], as: UTF8.self).lowercased()
        guard !authority.isEmpty, !authority.contains("@"), !authority.contains(" ") else { return nil }
        let defaultPort = scheme == "https" ? ":443" : ":80"
        if authority.hasSuffix(defaultPort) && !authority.hasSuffix("]") {
            authority.removeLast(defaultPort.count)
        }
        let afterAuthority = rest[authorityEnd...]
        let fragmentStart = afterAuthority.firstIndex(of: UInt8(ascii: "#")) ?? afterAuthority.endIndex
        let beforeFragment = afterAuthority[..<fragmentStart]
        let queryStart = beforeFragment.firstIndex(of: UInt8(ascii: "?"))
        let pathBytes = beforeFragment[..<(queryStart ?? beforeFragment.endIndex)]
        self.scheme = scheme
        self.authority = authority
        self.rawPath = pathBytes.isEmpty ? "/" : String(decoding: pathBytes, as: UTF8.self)
        var pairs: [Pair] = []
        if let queryStart {
            let query = beforeFragment[(queryStart + 1)...]
            for piece in query.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
                if let equals = piece.firstIndex(of: UInt8(ascii: "=")) {
                    pairs.append(
                        Pair(
                            rawName: String(decoding: piece[..<equals], as: UTF8.self),
                            rawValue: String(decoding: piece[(equals + 1)...], as: UTF8.self)))
                } else {
                    pairs.append(Pair(rawName: String(decoding: piece, as: UTF8.self), rawValue: ""))
                }
            }
        }
        self.pairs = pairs
    }

    /// The pairs named `name` (decoded), in URL order.
    func pairs(named name: String) -> [Pair] { pairs.filter { $0.name == name } }

    /// The first value (decoded once) of `name`.
    func value(_ name: String) -> String? { pairs.first { $0.name == name }?.value }
}

/// Percent-decoding, and the signs of a percent-encoded text encoded a second time.
enum PercentCoding {
    /// `text` with every `%XX` (hexadecimal) turned into its byte, once; a `%` not followed by two
    /// hexadecimal digits stays as it is. `+` stays `+` (S3 reads the query that way).
    static func decode(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return text }
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count, let high = hexValue(bytes[index + 1]),
                let low = hexValue(bytes[index + 2])
            {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// True when `text` holds `%25XX`: a `%XX` whose `%` was encoded again (`%2F` → `%252F`).
    static func isEncodedTwice(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count >= 5 else { return false }
        for index in 0...(bytes.count - 5)
        where bytes[index] == UInt8(ascii: "%") && bytes[index + 1] == UInt8(ascii: "2")
            && bytes[index + 2] == UInt8(ascii: "5") && hexValue(bytes[index + 3]) != nil
            && hexValue(bytes[index + 4]) != nil
        {
            return true
        }
        return false
    }

    /// The value of one hexadecimal digit, either case.
    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
