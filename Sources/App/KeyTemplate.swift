/// An object-key template such as `delete/profile/{userId}/{uuid}_{epochMillis}.{ext}`, checked at start
/// and rendered per request.
///
/// Invariant: a rendered key is always a safe key (`isSafeKey`). The literal parts are checked once, at
/// parse time (only `[a-z0-9/_.-]`, no `..`, no `//`, no leading `/`), and every substituted value must be
/// a non-empty run of `[a-z0-9_-]`: a value can therefore never add a `/` or a `.`, nor make `..` or `//`.
public struct KeyTemplate: Sendable, Equatable {
    enum Part: Sendable, Equatable {
        case literal([UInt8])
        case variable(Variable)
    }

    /// The variables a template may use.
    public enum Variable: String, Sendable, CaseIterable {
        case userId, uuid, epochMillis, ext, chatroomId, imageKey
    }

    /// The values of one rendering; nil where a variable has no value.
    public struct Values: Sendable {
        public var userId: String?
        public var uuid: String?
        public var epochMillis: String?
        public var ext: String?
        public var chatroomId: String?
        public var imageKey: String?

        /// Values for one key.
        public init(
            userId: String? = nil, uuid: String? = nil, epochMillis: String? = nil, ext: String? = nil,
            chatroomId: String? = nil, imageKey: String? = nil
        ) {
            self.userId = userId
            self.uuid = uuid
            self.epochMillis = epochMillis
            self.ext = ext
            self.chatroomId = chatroomId
            self.imageKey = imageKey
        }

        subscript(_ v: Variable) -> String? {
            switch v {
            case .userId: return userId
            case .uuid: return uuid
            case .epochMillis: return epochMillis
            case .ext: return ext
            case .chatroomId: return chatroomId
            case .imageKey: return imageKey
            }
        }
    }

    let parts: [Part]
    /// The template text as configured.
    public let text: String

    /// Parses `text`; nil when it names an unknown variable, has an unbalanced brace, or its literal
    /// text breaks the key rules.
    public init?(_ text: String) {
        var parts: [Part] = []
        var literal = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            literal += rest[rest.startIndex..<open]
            guard let close = rest[open...].firstIndex(of: "}"),
                let v = Variable(rawValue: String(rest[rest.index(after: open)..<close]))
            else { return nil }
            if !literal.isEmpty { parts.append(.literal(Array(literal.utf8))) }
            literal = ""
            parts.append(.variable(v))
            rest = rest[rest.index(after: close)...]
        }
        if rest.contains("}") { return nil }
        literal += rest
        if !literal.isEmpty { parts.append(.literal(Array(literal.utf8))) }
        guard !parts.isEmpty else { return nil }
        // Check the literals as a key in which every variable is a one-letter value.
        var probe = ""
        for p in parts {
            switch p {
            case .literal(let bytes): probe += String(decoding: bytes, as: UTF8.self)
            case .variable: probe += "x"
            }
        }
        guard KeyTemplate.isSafeKey(probe) else { return nil }
        self.parts = parts
        self.text = text
    }

    /// True when the template uses `v`.
    public func uses(_ v: Variable) -> Bool { parts.contains(.variable(v)) }

    /// Renders the key; nil when a needed value is missing or is not a run of `[a-z0-9_-]`.
    public func render(_ values: Values) -> String? {
        var out = [UInt8]()
        out.reserveCapacity(112)
        for p in parts {
            switch p {
            case .literal(let bytes): out.append(contentsOf: bytes)
            case .variable(let v):
                guard let value = values[v], KeyTemplate.isSafeValue(value) else { return nil }
                out.append(contentsOf: value.utf8)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A non-empty run of at most 128 bytes of `[a-z0-9_-]`.
    static func isSafeValue(_ s: String) -> Bool {
        let u = s.utf8
        guard !u.isEmpty, u.count <= 128 else { return false }
        for b in u {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"),
                UInt8(ascii: "-"):
                continue
            default: return false
            }
        }
        return true
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
