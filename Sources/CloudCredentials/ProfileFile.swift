/// The AWS shared credentials and config files (`~/.aws/credentials`, `~/.aws/config`): INI
/// sections of `key = value` properties, by profile. Pure.
///
/// - A section is `[name]` in the credentials file; in the config file `[default]` or
///   `[profile name]` (`[profile default]` too), and other sections (`[sso-session x]`,
///   `[services x]`) are not profiles and are skipped. A `#` or `;` comment may follow the `]`.
/// - Lines starting with `#` or `;` (after white space) are comments; blank lines are skipped.
///   A value is taken whole: no inline comments, so a key can never be cut at a `#`.
/// - `key = value`, white space around both trimmed, keys compared in lower case. A repeated key
///   keeps the last value; a repeated section adds to the first.
/// - An indented line continues the property before it (sub-properties such as `s3 =` then
///   `  max_concurrent_requests = 10`); such nested values are kept out of the profile.
/// - Anything else (a property outside a section, a line without `=`, an empty key or name) is an
///   error naming the file and line, never the line's text.
struct ProfileFile: Sendable, Equatable {
    /// Which of the two files: they name their sections differently.
    enum Kind: Sendable {
        /// `~/.aws/credentials`: `[name]`.
        case credentials
        /// `~/.aws/config`: `[default]`, `[profile name]`.
        case config
    }

    /// Properties by profile name.
    var profiles: [String: [String: String]]

    /// Parses `bytes`; `source` (the path) and `provider` name errors.
    static func parse(_ bytes: [UInt8], kind: Kind, source: String, provider: String) throws(CredentialsError)
        -> ProfileFile
    {
        var text = bytes[...]
        if text.starts(with: [0xef, 0xbb, 0xbf]) { text = text.dropFirst(3) }
        guard let decoded = String(validating: text, as: UTF8.self) else {
            throw .invalidConfiguration(provider: provider, reason: "\(source) is not UTF-8 text")
        }
        var profiles: [String: [String: String]] = [:]
        var section: String?? = .none  // .none: before any section; .some(nil): a skipped section
        var lastKey: String?
        // "\r\n" is one Character, so both line ends are named.
        let lines = decoded.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        for (offset, rawLine) in lines.enumerated() {
            func fail(_ reason: String) -> CredentialsError {
                .invalidConfiguration(provider: provider, reason: "\(source) line \(offset + 1): \(reason)")
            }
            var line = rawLine[...]
            if line.hasSuffix("\r") { line = line.dropLast() }
            let trimmed = trim(line)
            if trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed.hasPrefix(";") { continue }
            if line.first == " " || line.first == "\t" {
                // A continuation of the property before it (a nested sub-property).
                guard case .some = section, lastKey != nil else { throw fail("an indented line continues no property") }
                continue
            }
            if trimmed.hasPrefix("[") {
                guard let close = trimmed.firstIndex(of: "]") else { throw fail("a section header lacks its ]") }
                let after = trim(trimmed[trimmed.index(after: close)...])
                guard after.isEmpty || after.hasPrefix("#") || after.hasPrefix(";") else {
                    throw fail("text after a section header")
                }
                let header = trim(trimmed[trimmed.index(after: trimmed.startIndex)..<close])
                guard !header.isEmpty else { throw fail("an empty section name") }
                let name = profileName(header, kind: kind)
                if let name, name.isEmpty { throw fail("an empty profile name") }
                section = .some(name)
                if let name, profiles[name] == nil { profiles[name] = [:] }
                lastKey = nil
                continue
            }
            guard let equals = trimmed.firstIndex(of: "=") else { throw fail("expected key = value") }
            let key = trim(trimmed[..<equals]).lowercased()
            guard !key.isEmpty else { throw fail("a property without a key") }
            guard case .some(let current) = section else { throw fail("a property before any section") }
            lastKey = key
            guard let current else { continue }
            profiles[current]?[key] = String(trim(trimmed[trimmed.index(after: equals)...]))
        }
        return ProfileFile(profiles: profiles)
    }

    /// The profile a section header names, or nil for a section that is not a profile.
    private static func profileName(_ header: Substring, kind: Kind) -> String? {
        switch kind {
        case .credentials:
            return String(header)
        case .config:
            if header == "default" { return "default" }
            guard header.hasPrefix("profile"), let first = header.dropFirst(7).first, first == " " || first == "\t"
            else { return nil }
            return String(trim(header.dropFirst(7)))
        }
    }

    /// `text` without leading and trailing spaces and tabs.
    private static func trim(_ text: Substring) -> Substring {
        var result = text
        while let first = result.first, first == " " || first == "\t" { result = result.dropFirst() }
        while let last = result.last, last == " " || last == "\t" { result = result.dropLast() }
        return result
    }
}
