/// An object-key template such as `delete/profile/{userId}/{uuid}_{epochMillis}.{ext}`, checked at start
/// and rendered per request.
///
/// Invariant: a rendered key is always a safe key (`isSafeKey`). The literal parts are checked once, at
/// parse time (only `[a-z0-9/_.-]`, no `..`, no `//`, no leading `/`), and every substituted value must be
/// a non-empty run of `[a-z0-9_-]`: a value can therefore never add a `/` or a `.`, nor make `..` or `//`.
public struct KeyTemplate: Sendable, Equatable {
    /// One piece of a template: literal text, or a variable.
    enum Part: Sendable, Equatable {
        /// Bytes of `literals` (offsets, so rendering copies no array references).
        case literal(Range<Int>)
        /// A variable, substituted at render time.
        case variable(Variable)
    }

    /// The variables a template may use.
    public enum Variable: String, Sendable, CaseIterable {
        case userId, uuid, epochMillis, ext, chatroomId, imageKey
        /// The uploaded file's name as a slug (`[a-z0-9_-]`), given only by the multipart routes.
        case filename
    }

    /// The values of one rendering; nil where a variable has no value.
    public struct Values: Sendable {
        public var userId: String?
        public var uuid: String?
        public var epochMillis: Int64?
        public var ext: String?
        public var chatroomId: String?
        public var imageKey: String?
        public var filename: String?

        /// Values for one key.
        public init(
            userId: String? = nil, uuid: String? = nil, epochMillis: Int64? = nil, ext: String? = nil,
            chatroomId: String? = nil, imageKey: String? = nil, filename: String? = nil
        ) {
            self.filename = filename
            self.userId = userId
            self.uuid = uuid
            self.epochMillis = epochMillis
            self.ext = ext
            self.chatroomId = chatroomId
            self.imageKey = imageKey
        }

        /// The text value of `v` (every variable but `epochMillis`, which is a number).
        subscript(text v: Variable) -> String? {
            switch v {
            case .userId: return userId
            case .uuid: return uuid
            case .epochMillis: return nil
            case .ext: return ext
            case .chatroomId: return chatroomId
            case .imageKey: return imageKey
            case .filename: return filename
            }
        }
    }

    /// What can be wrong with a template's text.
    public enum Problem: Sendable, Equatable {
        /// The text is empty.
        case empty
        /// The text is longer than `maximumTextCount` characters.
        case tooLong
        /// A `{` has no `}` after it (the rest of the text is not read).
        case unclosedBrace
        /// `{name}` names no variable.
        case unknownVariable(String)
        /// A literal character is outside `[a-z0-9/_.-]` (a stray `}` among them).
        case literalCharacter
        /// The text holds `..`.
        case doubleDot
        /// The text holds `//`.
        case doubleSlash
        /// The text starts with `/`.
        case leadingSlash
        /// The text ends with `/`.
        case trailingSlash
    }

    /// The longest template text, in characters.
    public static let maximumTextCount = 512

    /// The literal characters a template may hold.
    static let literalCharacters = Set("abcdefghijklmnopqrstuvwxyz0123456789/_.-")

    let parts: [Part]
    /// The literal text of every part, one after the other.
    let literals: [UInt8]
    /// The template text as configured.
    public let text: String

    /// Parses `text`; nil when it has any of the `problems(in:)`.
    public init?(_ text: String) {
        let parsed = KeyTemplate.parse(text)
        guard parsed.problems.isEmpty else { return nil }
        self.parts = parsed.parts
        self.literals = parsed.literals
        self.text = text
    }

    /// Everything wrong with `text` as a template, in the order found (empty when it is one), and
    /// the variables it uses (as far as it could be read).
    public static func problems(in text: String) -> (problems: [Problem], variables: Set<Variable>) {
        let parsed = parse(text)
        return (parsed.problems, Set(parsed.parts.compactMap { if case .variable(let v) = $0 { v } else { nil } }))
    }

    /// The one reading of the template grammar: literal runs and `{variables}`, then the key rules on
    /// the literal text (only `[a-z0-9/_.-]`, no `..`, no `//`, no leading or trailing `/`). Since every
    /// value is a non-empty run of `[a-z0-9_-]`, a template that passes renders only safe keys.
    private static func parse(_ text: String) -> (parts: [Part], literals: [UInt8], problems: [Problem]) {
        guard !text.isEmpty else { return ([], [], [.empty]) }
        var problems: [Problem] = []
        if text.count > maximumTextCount { problems.append(.tooLong) }
        var parts: [Part] = []
        var literals: [UInt8] = []
        var literalStart = 0
        /// Ends the literal run collected since `literalStart`, if any.
        func closeLiteral() {
            if literals.count > literalStart { parts.append(.literal(literalStart..<literals.count)) }
            literalStart = literals.count
        }
        var badLiteral = false
        var rest = Substring(text)
        while let character = rest.first {
            if character == "{" {
                guard let close = rest.firstIndex(of: "}") else {
                    problems.append(.unclosedBrace)
                    break
                }
                let name = String(rest[rest.index(after: rest.startIndex)..<close])
                if let variable = Variable(rawValue: name) {
                    closeLiteral()
                    parts.append(.variable(variable))
                } else {
                    problems.append(.unknownVariable(name))
                }
                rest = rest[rest.index(after: close)...]
            } else {
                if !literalCharacters.contains(character) { badLiteral = true }
                literals.append(contentsOf: character.utf8)
                rest = rest.dropFirst()
            }
        }
        closeLiteral()
        if badLiteral { problems.append(.literalCharacter) }
        if text.contains("..") { problems.append(.doubleDot) }
        if text.contains("//") { problems.append(.doubleSlash) }
        if text.hasPrefix("/") { problems.append(.leadingSlash) }
        if text.hasSuffix("/") { problems.append(.trailingSlash) }
        return (parts, literals, problems)
    }

    /// The literal text before the first variable (`delete/profile/` of
    /// `delete/profile/{userId}/…`; empty when the template starts with a variable): every key the
    /// template renders starts with it.
    public var literalPrefix: String {
        guard case .literal(let range) = parts.first else { return "" }
        return String(decoding: literals[range], as: UTF8.self)
    }

    /// True when the template uses `v`.
    public func uses(_ v: Variable) -> Bool { parts.contains(.variable(v)) }

    /// The longest value a variable may take, in bytes.
    static let maximumValueCount = 128

    /// Renders the key; nil when a needed value is missing, is not a run of `[a-z0-9_-]`, or (for
    /// `epochMillis`) is negative.
    ///
    /// The key is written straight into its `String` (one allocation); each value is checked, then
    /// copied.
    public func render(_ values: Values) -> String? {
        var capacity = literals.count
        for p in parts {
            guard case .variable(let v) = p else { continue }
            capacity += v == .epochMillis ? 20 : min(values[text: v]?.utf8.count ?? 0, KeyTemplate.maximumValueCount)
        }
        var complete = true
        let key = String(unsafeUninitializedCapacity: capacity) { out in
            literals.withUnsafeBufferPointer { literals in
                var count = 0
                for p in parts {
                    switch p {
                    case .literal(let range):
                        KeyTemplate.copy(UnsafeBufferPointer(rebasing: literals[range]), to: out, at: &count)
                    case .variable(.epochMillis):
                        guard let millis = values.epochMillis, millis >= 0 else {
                            complete = false
                            return 0
                        }
                        count = KeyTemplate.writeDecimal(millis, to: out, at: count)
                    case .variable(let v):
                        guard let value = values[text: v], KeyTemplate.copySafeValue(value, to: out, at: &count) else {
                            complete = false
                            return 0
                        }
                    }
                }
                return count
            }
        }
        return complete ? key : nil
    }

    /// Copies `bytes` to `out` at `count`, advancing it.
    @inline(__always)
    private static func copy(
        _ bytes: UnsafeBufferPointer<UInt8>, to out: UnsafeMutableBufferPointer<UInt8>, at count: inout Int
    ) {
        precondition(bytes.count <= out.count - count, "KeyTemplate: capacity too small")
        if let source = bytes.baseAddress { (out.baseAddress! + count).initialize(from: source, count: bytes.count) }
        count += bytes.count
    }

    /// Copies `value` to `out` at `count` (advancing it) when it is a safe value (`isSafeValue`);
    /// false when it is not.
    private static func copySafeValue(_ value: String, to out: UnsafeMutableBufferPointer<UInt8>, at count: inout Int)
        -> Bool
    {
        var value = value
        return value.withUTF8 { bytes in
            guard !bytes.isEmpty, bytes.count <= maximumValueCount, bytes.allSatisfy(isSafeValueByte) else {
                return false
            }
            copy(bytes, to: out, at: &count)
            return true
        }
    }

    /// Writes the decimal digits of `value` (not negative) at `start`; returns the index after them.
    private static func writeDecimal(_ value: Int64, to out: UnsafeMutableBufferPointer<UInt8>, at start: Int) -> Int {
        var digits = 1
        var rest = value / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        var v = value
        var i = start + digits
        while i > start {
            i -= 1
            out[i] = UInt8(ascii: "0") + UInt8(v % 10)
            v /= 10
        }
        return start + digits
    }

    /// `[a-z0-9_-]`: the bytes a substituted value may hold.
    @inline(__always)
    private static func isSafeValueByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"),
            UInt8(ascii: "-"):
            return true
        default: return false
        }
    }

    /// A non-empty run of at most 128 bytes of `[a-z0-9_-]`.
    static func isSafeValue(_ s: String) -> Bool {
        var s = s
        return s.withUTF8 { bytes in
            !bytes.isEmpty && bytes.count <= maximumValueCount && bytes.allSatisfy(isSafeValueByte)
        }
    }

    /// `[a-z0-9/_.-]`, at most 1024 bytes, no `..`, no `//`, no leading or trailing `/`.
    public static func isSafeKey(_ key: String) -> Bool {
        // Native strings are read in place (the part-URL route checks a key per request).
        key.utf8.withContiguousStorageIfAvailable(isSafeKey) ?? isSafeKey(Array(key.utf8))
    }

    /// `isSafeKey` of UTF-8 bytes.
    static func isSafeKey<Bytes: Collection<UInt8>>(_ u: Bytes) -> Bool {
        guard !u.isEmpty, u.count <= 1024, u.first != UInt8(ascii: "/") else { return false }
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
        return prev != UInt8(ascii: "/")
    }
}
