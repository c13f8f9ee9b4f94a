internal import COpenSSL

/// Reads OpenSSL's thread-local error queue: the one place that turns its error codes into text (the
/// texts are OpenSSL's own and never hold key material). Every reader leaves the queue empty.
public enum OpenSSLErrors {
    /// The text a reader gives when nothing was queued.
    public static let noneQueued = "no OpenSSL error queued"

    /// Every queued error as OpenSSL's line (`error:<code>:<library>:<function>:<reason>`), oldest first.
    public static func drainLines() -> [String] {
        var lines: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { return lines }
            lines.append(text(of: code))
        }
    }

    /// Every queued error, oldest first, joined by `; `, or `noneQueued`.
    public static func drain() -> String {
        let lines = drainLines()
        return lines.isEmpty ? noneQueued : lines.joined(separator: "; ")
    }

    /// The oldest queued error alone (the first failure, not its consequences), or `noneQueued`.
    public static func oldest() -> String {
        drainLines().first ?? noneQueued
    }

    /// Every queued error condensed for a one-line message (see `condense(_:ifNone:)`).
    public static func drainCondensed(ifNone: String = noneQueued) -> String {
        condense(drainLines(), ifNone: ifNone)
    }

    /// OpenSSL lines as "library: reason", distinct ones only, oldest first, joined by `; `; the generic
    /// "system lib" and "PEM lib" wrappers are left out when a more precise entry exists. A line of
    /// another shape is kept whole; no lines give `ifNone`.
    public static func condense(_ lines: [String], ifNone: String = noneQueued) -> String {
        var parts: [(text: String, generic: Bool)] = []
        for line in lines {
            let fields = line.split(separator: ":", maxSplits: 4, omittingEmptySubsequences: false)
            let text = fields.count == 5 ? "\(fields[2]): \(fields[4])" : line
            let generic = fields.count == 5 && (fields[4] == "system lib" || fields[4] == "PEM lib")
            if !parts.contains(where: { $0.text == text }) { parts.append((text, generic)) }
        }
        let precise = parts.filter { !$0.generic }
        let chosen = precise.isEmpty ? parts : precise
        return chosen.isEmpty ? ifNone : chosen.map(\.text).joined(separator: "; ")
    }

    /// Empties the queue without reading it.
    public static func clear() { ERR_clear_error() }

    /// OpenSSL's text for one error code.
    private static func text(of code: UInt) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
