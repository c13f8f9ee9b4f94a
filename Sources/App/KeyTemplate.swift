/// An object-key template such as `delete/profile/{userId}/{uuid}_{epochMillis}.{ext}`, checked at start
/// and rendered per request. Rendering refuses any value that would put a character outside
/// `[a-z0-9/_.-]` into a key, or make `..`, `//` or a leading `/`.
public struct KeyTemplate: Sendable, Equatable {
    enum Part: Sendable, Equatable {
        case literal(String)
        case variable(Variable)
    }

    /// The variables a template may use.
    public enum Variable: String, Sendable, CaseIterable {
        case userId, uuid, epochMillis, ext, chatroomId, imageKey
    }

    let parts: [Part]
    /// The template text as configured.
    public let text: String

    /// Parses `text`; nil when it names an unknown variable or has an unbalanced brace.
    public init?(_ text: String) {
        var parts: [Part] = []
        var literal = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            literal += rest[rest.startIndex..<open]
            guard let close = rest[open...].firstIndex(of: "}"),
                let v = Variable(rawValue: String(rest[rest.index(after: open)..<close]))
            else { return nil }
            if !literal.isEmpty { parts.append(.literal(literal)) }
            literal = ""
            parts.append(.variable(v))
            rest = rest[rest.index(after: close)...]
        }
        if rest.contains("}") { return nil }
        literal += rest
        if !literal.isEmpty { parts.append(.literal(literal)) }
        self.parts = parts
        self.text = text
    }

    /// True when the template uses `v`.
    public func uses(_ v: Variable) -> Bool { parts.contains(.variable(v)) }

    /// Renders the key; nil when a needed value is missing or the result is not a safe key.
    public func render(_ values: [Variable: String]) -> String? {
        var out = ""
        out.reserveCapacity(96)
        for p in parts {
            switch p {
            case .literal(let s): out += s
            case .variable(let v):
                guard let value = values[v], !value.isEmpty else { return nil }
                out += value
            }
        }
        return KeyTemplate.isSafeKey(out) ? out : nil
    }

    /// `[a-z0-9/_.-]`, at most 1024 bytes, no `..`, no `//`, no leading or trailing `/`.
    public static func isSafeKey(_ key: String) -> Bool {
        let u = key.utf8
        guard !u.isEmpty, u.count <= 1024, u.first != UInt8(ascii: "/"), u.last != UInt8(ascii: "/") else {
            return false
        }
        var prev: UInt8 = 0
        for b in u {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"),
                UInt8(ascii: "-"):
                break
            case UInt8(ascii: "."):
                if prev == UInt8(ascii: ".") { return false }
            case UInt8(ascii: "/"):
                if prev == UInt8(ascii: "/") { return false }
            default:
                return false
            }
            prev = b
        }
        return true
    }
}
