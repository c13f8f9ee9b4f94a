import CPostgres

/// A PostgreSQL connection URL, checked by libpq, with what is needed to keep its password out of
/// every message.
struct PostgresURL: Sendable, CustomStringConvertible {
    /// The URL as given, handed to libpq; never printed.
    let connectionString: String
    /// The URL with its password (userinfo or `password=` parameter, and any other place the same text
    /// appears) replaced by `<redacted>`.
    let redacted: String
    /// The password in every form it may appear in a message (as written and percent-decoded).
    private let passwords: [String]

    /// Parses `url` with libpq's own parser; throws `.invalidURL` (without the password) when libpq refuses it.
    init(_ url: String) throws(RecordsError) {
        var found = Self.passwordsInText(url)
        var shown = Self.redact(url)
        for password in found where !password.isEmpty { shown = shown.replacing(password, with: "<redacted>") }
        redacted = shown
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(url, &errorMessage) else {
            var message = errorMessage.map { String(cString: $0) } ?? "unparseable"
            if let errorMessage { PQfreemem(errorMessage) }
            for password in found where !password.isEmpty { message = message.replacing(password, with: "<redacted>") }
            throw .invalidURL("PostgreSQL URL \(redacted): \(message.trimmingTrailingNewlines)")
        }
        defer { PQconninfoFree(options) }
        var option = options
        while let keyword = option.pointee.keyword {
            if String(cString: keyword) == "password", let value = option.pointee.val {
                found.append(String(cString: value))
            }
            option += 1
        }
        connectionString = url
        passwords = found.filter { !$0.isEmpty }
    }

    /// The redacted URL.
    var description: String { redacted }

    /// `message` with every occurrence of the password replaced by `<redacted>`.
    func scrub(_ message: String) -> String {
        var message = message
        for password in passwords { message = message.replacing(password, with: "<redacted>") }
        return message.trimmingTrailingNewlines
    }

    /// The URL with the password of its userinfo and of any `password=` parameter replaced.
    static func redact(_ url: String) -> String {
        var text = url
        if let schemeEnd = text.firstRange(of: "://") {
            let afterScheme = schemeEnd.upperBound
            let authorityEnd = text[afterScheme...].firstIndex { $0 == "/" || $0 == "?" } ?? text.endIndex
            if let at = text[afterScheme..<authorityEnd].lastIndex(of: "@"),
                let colon = text[afterScheme..<at].firstIndex(of: ":")
            {
                text.replaceSubrange(text.index(after: colon)..<at, with: "<redacted>")
            }
        }
        return replacingPasswordParameters(in: text)
    }

    /// The password strings that `text` holds, raw and percent-decoded.
    private static func passwordsInText(_ url: String) -> [String] {
        var found: [String] = []
        if let schemeEnd = url.firstRange(of: "://") {
            let afterScheme = schemeEnd.upperBound
            let authorityEnd = url[afterScheme...].firstIndex { $0 == "/" || $0 == "?" } ?? url.endIndex
            if let at = url[afterScheme..<authorityEnd].lastIndex(of: "@"),
                let colon = url[afterScheme..<at].firstIndex(of: ":")
            {
                found.append(String(url[url.index(after: colon)..<at]))
            }
        }
        if let query = url.firstIndex(of: "?") {
            for pair in url[url.index(after: query)...].split(separator: "&") where pair.hasPrefix("password=") {
                found.append(String(pair.dropFirst("password=".count)))
            }
        }
        return found + found.compactMap(percentDecoded).filter { !found.contains($0) }
    }

    /// `url` with the password of its userinfo set to `password` (for tests that need a wrong one).
    static func replacingPassword(in url: String, with password: String) -> String {
        var text = url
        guard let schemeEnd = text.firstRange(of: "://") else { return url }
        let afterScheme = schemeEnd.upperBound
        let authorityEnd = text[afterScheme...].firstIndex { $0 == "/" || $0 == "?" } ?? text.endIndex
        guard let at = text[afterScheme..<authorityEnd].lastIndex(of: "@"),
            let colon = text[afterScheme..<at].firstIndex(of: ":")
        else { return url }
        text.replaceSubrange(text.index(after: colon)..<at, with: password)
        return text
    }

    /// `text` with the value of every `password=` query parameter replaced.
    private static func replacingPasswordParameters(in text: String) -> String {
        guard let query = text.firstIndex(of: "?") else { return text }
        let pairs = text[text.index(after: query)...].split(separator: "&", omittingEmptySubsequences: false).map {
            $0.hasPrefix("password=") ? "password=<redacted>" : String($0)
        }
        return String(text[...query]) + pairs.joined(separator: "&")
    }

    /// Decodes `%XX` escapes; nil when there are none or they are malformed.
    private static func percentDecoded(_ text: String) -> String? {
        guard text.contains("%") else { return nil }
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard iterator.count >= 2, let high = hexValue(iterator.removeFirst()),
                let low = hexValue(iterator.removeFirst())
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

extension String {
    /// The string without trailing line feeds and carriage returns (libpq ends its messages with one).
    var trimmingTrailingNewlines: String {
        var text = Substring(self)
        while let last = text.last, last == "\n" || last == "\r" { text = text.dropLast() }
        return String(text)
    }
}
