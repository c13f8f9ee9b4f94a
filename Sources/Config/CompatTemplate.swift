import JSON

/// The placeholders of compatibility answer templates: `{name}` inside a JSON string, pure.
///
/// A string that is exactly one placeholder is replaced by the value (a JSON string, or for
/// `{headers}`, `{metadata}`, `{fieldErrors}`, `{size}` and `{status}` the raw JSON object or number);
/// placeholders inside a longer string are written into it as text. `{param.NAME}` is the path
/// parameter NAME.
public enum CompatTemplate {
    /// One piece of a template string.
    public enum Piece: Sendable, Equatable {
        /// Text as it is.
        case text(String)
        /// A placeholder's name.
        case placeholder(String)
    }

    /// The placeholders of a success answer of an issuing route.
    public static let issuePlaceholders: Set<String> = ["url", "key", "imageKey", "expiresAt", "method", "headers"]
    /// The placeholders of a success answer of a confirming route.
    public static let confirmPlaceholders: Set<String> = [
        "url", "key", "imageKey", "id", "type", "contentType", "size", "createdAt", "metadata", "sha256",
    ]
    /// The placeholders of an error answer.
    public static let errorPlaceholders: Set<String> = ["code", "message", "status", "fieldErrors"]
    /// Placeholders whose value is raw JSON (an object or a number) rather than text.
    public static let rawPlaceholders: Set<String> = ["headers", "metadata", "fieldErrors", "size", "status"]

    /// The pieces of `text`, or nil when a `{` is not closed or a name is empty or not `[A-Za-z0-9_.]`.
    public static func pieces(_ text: String) -> [Piece]? {
        var pieces: [Piece] = []
        var literal = ""
        var index = text.startIndex
        while index < text.endIndex {
            let c = text[index]
            if c == "}" { return nil }
            guard c == "{" else {
                literal.append(c)
                index = text.index(after: index)
                continue
            }
            guard let close = text[index...].firstIndex(of: "}") else { return nil }
            let name = String(text[text.index(after: index)..<close])
            guard !name.isEmpty, name.unicodeScalars.allSatisfy({ nameCharacters.contains($0) }) else { return nil }
            if !literal.isEmpty { pieces.append(.text(literal)) }
            literal = ""
            pieces.append(.placeholder(name))
            index = text.index(after: close)
        }
        if !literal.isEmpty { pieces.append(.text(literal)) }
        return pieces
    }

    /// The characters of a placeholder name.
    static let nameCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.".unicodeScalars)

    /// Every placeholder name in the strings of `value` (keys are never templates), or nil with the
    /// first malformed string.
    public static func placeholders(in value: JSONValue) -> Result<[String], MalformedString> {
        var names: [String] = []
        var bad: String?
        func walk(_ v: JSONValue) {
            if let s = v.stringValue {
                guard let p = pieces(s) else {
                    if bad == nil { bad = s }
                    return
                }
                for case .placeholder(let n) in p { names.append(n) }
            } else if let a = v.arrayValue {
                a.forEach(walk)
            } else if let o = v.objectValue {
                for m in o { walk(m.value) }
            }
        }
        walk(value)
        if let bad { return .failure(MalformedString(text: bad)) }
        return .success(names)
    }

    /// A template string with an unclosed brace or a bad placeholder name.
    public struct MalformedString: Error, Sendable {
        /// The string.
        public let text: String
    }
}
