/// A JSON number kept as its literal text, so no precision is lost until a caller asks for a type.
///
/// Equality compares the literal text: `1` and `1.0` are different numbers here.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The number exactly as written, matching the grammar of RFC 8259, section 6.
    public let literal: String

    /// Wraps text already known to match the number grammar (the parser's path).
    init(uncheckedLiteral: String) {
        literal = uncheckedLiteral
    }

    /// Wraps `literal` when it is one complete RFC 8259 number, else returns nil.
    public init?(literal: String) {
        var text = literal
        let valid = text.withUTF8 { utf8 in
            var scanner = JSONScanner(bytes: UnsafeRawBufferPointer(utf8), maxDepth: 1)
            return (try? scanner.parseNumber()) != nil && scanner.index == utf8.count
        }
        guard valid else { return nil }
        self.literal = literal
    }

    /// The integer `value`.
    public init(_ value: Int64) {
        literal = String(value)
    }

    /// The integer `value`.
    public init(_ value: Int) {
        literal = String(value)
    }

    /// The shortest literal that reads back as `value`; nil for NaN and infinities, which JSON cannot hold.
    public init?(_ value: Double) {
        guard value.isFinite else { return nil }
        literal = String(value)
    }

    /// True when the literal has neither a fraction nor an exponent.
    public var isInteger: Bool {
        !literal.utf8.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
    }

    /// The value as an `Int64` when the literal is written as an integer that fits; nil on a fraction,
    /// an exponent, or overflow.
    public var int64: Int64? {
        var negative = false
        var value: Int64 = 0
        for (position, byte) in literal.utf8.enumerated() {
            if position == 0 && byte == UInt8(ascii: "-") {
                negative = true
                continue
            }
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            let digit = Int64(byte &- 0x30)
            // Accumulate negatively so that Int64.min fits.
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = shifted.subtractingReportingOverflow(digit)
            if overflow1 || overflow2 { return nil }
            value = next
        }
        if negative { return value }
        return value == Int64.min ? nil : -value
    }

    /// The value as an `Int` when `int64` has one and it fits.
    public var int: Int? {
        guard let value = int64 else { return nil }
        return Int(exactly: value)
    }

    /// The nearest `Double`; magnitudes beyond its range give ±infinity, tiny ones ±0.
    public var double: Double {
        if let value = Double(literal) { return value }
        // Not reached for grammar-valid literals; keep a defined answer anyway.
        return literal.hasPrefix("-") ? -.infinity : .infinity
    }

    /// The literal text.
    public var description: String { literal }
}
