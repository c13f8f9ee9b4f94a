/// The recursive-descent engine behind `JSONParser`: one pass over borrowed bytes, an index, a depth.
///
/// Grammar references are to RFC 8259; UTF-8 well-formedness is RFC 3629, section 4.
struct JSONScanner {
    /// The whole document.
    let bytes: UnsafeRawBufferPointer
    /// Most arrays and objects nested inside each other.
    let maxDepth: Int
    /// The next byte to read.
    var index = 0
    /// Arrays and objects currently open.
    var depth = 0
    /// Reused buffer for strings that contain escapes.
    var scratch: [UInt8] = []
    /// The members a top-level object has room for from its first (`parseObject`).
    static let topLevelMembers = 8

    /// Starts at the first byte of `bytes`.
    init(bytes: UnsafeRawBufferPointer, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    /// RFC 8259, section 2: `JSON-text = ws value ws`, and nothing after.
    mutating func parseDocument() throws(JSONError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        if index != bytes.count { throw JSONError(offset: index, reason: .trailingData) }
        return value
    }

    /// The error for the byte at `index`, or for the end of input.
    func unexpected() -> JSONError {
        if index >= bytes.count { return JSONError(offset: index, reason: .unexpectedEnd) }
        return JSONError(offset: index, reason: .unexpectedByte(bytes[index]))
    }

    /// Skips the four whitespace bytes of RFC 8259, section 2.
    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// RFC 8259, section 3: one value starting at `index` (whitespace already skipped).
    mutating func parseValue() throws(JSONError) -> JSONValue {
        guard index < bytes.count else { throw JSONError(offset: index, reason: .unexpectedEnd) }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try parseNumber())
        default:
            throw unexpected()
        }
    }

    /// Consumes the exact bytes of `literal` (`true`, `false` or `null`).
    mutating func expectLiteral(_ literal: StaticString) throws(JSONError) {
        let count = literal.utf8CodeUnitCount
        let start = literal.utf8Start
        for offset in 0..<count {
            guard index < bytes.count else { throw JSONError(offset: index, reason: .unexpectedEnd) }
            guard bytes[index] == start[offset] else { throw unexpected() }
            index += 1
        }
    }

    /// Opens an array or object, enforcing the depth limit.
    mutating func enterContainer() throws(JSONError) {
        depth += 1
        if depth > maxDepth { throw JSONError(offset: index, reason: .tooDeep(limit: maxDepth)) }
        index += 1
    }

    /// RFC 8259, section 5: `[ value *( , value ) ]`.
    mutating func parseArray() throws(JSONError) -> JSONValue {
        try enterContainer()
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw JSONError(offset: index, reason: .unexpectedEnd) }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
                if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
                    throw JSONError(offset: index, reason: .trailingComma)
                }
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                return .array(elements)
            default:
                throw unexpected()
            }
        }
    }

    /// RFC 8259, section 4: `{ member *( , member ) }`, `member = string : value`; keys unique.
    mutating func parseObject() throws(JSONError) -> JSONValue {
        try enterContainer()
        var object = JSONObject()
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(object)
        }
        // A document's top-level object (a request body) has a handful of members: room for them at once
        // rather than growing from 1 to 2, 4 and 8. Nested objects, which can be many, grow as needed.
        if depth == 1 { object.reserveCapacity(Self.topLevelMembers) }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw unexpected() }
            let keyOffset = index
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw unexpected() }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            guard object.append(key: key, value: value) else {
                throw JSONError(offset: keyOffset, reason: .duplicateKey(key))
            }
            skipWhitespace()
            guard index < bytes.count else { throw JSONError(offset: index, reason: .unexpectedEnd) }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
                if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
                    throw JSONError(offset: index, reason: .trailingComma)
                }
            case UInt8(ascii: "}"):
                index += 1
                depth -= 1
                return .object(object)
            default:
                throw unexpected()
            }
        }
    }

    /// True for an ASCII digit.
    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }

    /// Consumes one or more digits, or throws `invalidNumber` if there is none.
    mutating func consumeDigits() throws(JSONError) {
        guard index < bytes.count, Self.isDigit(bytes[index]) else {
            throw JSONError(offset: index, reason: .invalidNumber)
        }
        repeat { index += 1 } while index < bytes.count && Self.isDigit(bytes[index])
    }

    /// RFC 8259, section 6: `[ minus ] int [ frac ] [ exp ]`, `int = zero / ( digit1-9 *DIGIT )`.
    mutating func parseNumber() throws(JSONError) -> JSONNumber {
        let start = index
        if index < bytes.count && bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, Self.isDigit(bytes[index]) else {
            throw JSONError(offset: index, reason: .invalidNumber)
        }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count && Self.isDigit(bytes[index]) {
                throw JSONError(offset: start, reason: .leadingZero)
            }
        } else {
            try consumeDigits()
        }
        if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
            index += 1
            try consumeDigits()
        }
        if index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")) {
            index += 1
            if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) {
                index += 1
            }
            try consumeDigits()
        }
        let literal = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        return JSONNumber(uncheckedLiteral: literal)
    }
}
