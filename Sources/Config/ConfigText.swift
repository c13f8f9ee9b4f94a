import JSON

/// How values are shown inside problem messages: short, escaped, never a secret.
enum ConfigText {
    /// Longest excerpt of a value quoted in a message, in characters.
    static let maxQuoted = 80

    /// `value` as a JSON string literal, cut to `maxQuoted` characters, so control characters show.
    static func quoted(_ value: String) -> String {
        let excerpt = value.count > maxQuoted ? String(value.prefix(maxQuoted)) + "…" : value
        var bytes: [UInt8] = []
        JSONWriter.appendQuoted(excerpt, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A file value as shown in messages: scalars as written, containers by their type name.
    static func shown(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): return quoted(text)
        case .number(let number): return number.literal.count > maxQuoted ? "a number" : number.literal
        case .bool(let flag): return flag ? "true" : "false"
        case .null: return "null"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
