import JSON
import Testing

@Suite struct JSONNumberTests {
    /// RFC 8259, section 6 leaves the range to the implementation; `int64` is exact or nil.
    @Test(
        arguments: [
            ("0", Int64(0)), ("-0", 0), ("42", 42), ("-42", -42),
            ("9223372036854775807", Int64.max), ("-9223372036854775808", Int64.min),
            ("9223372036854775808", nil), ("-9223372036854775809", nil),
            ("123456789012345678901234567890", nil),
            ("1.0", nil), ("1e2", nil), ("1E0", nil), ("0.5", nil),
        ] as [(String, Int64?)])
    func int64IsExact(_ literal: String, _ expected: Int64?) throws {
        let value = try JSONValue(parsing: literal)
        #expect(value.numberValue?.int64 == expected)
        #expect(value.intValue == expected.flatMap { Int(exactly: $0) })
    }

    @Test func doubleEdgeCases() throws {
        func double(_ literal: String) throws -> Double? { try JSONValue(parsing: literal).numberValue?.double }
        #expect(try double("1e400") == .infinity)
        #expect(try double("-1e400") == -.infinity)
        let negativeZero = try #require(try double("-0"))
        #expect(negativeZero == 0 && negativeZero.sign == .minus)
        #expect(try double("1e-400") == 0)
        #expect(try double("0.1") == 0.1)
        #expect(try double("123456789012345678901234567890") == 1.2345678901234568e29)
        #expect(try double("9007199254740993") == 9_007_199_254_740_992)  // 2^53 + 1 rounds to even
        #expect(try double("2.5E-3") == 0.0025)
    }

    @Test func literalIsKeptExactly() throws {
        for literal in ["1E+2", "-0", "0.10", "1e400", "123456789012345678901234567890.5e-7"] {
            let value = try JSONValue(parsing: "[\(literal)]")
            #expect(value.arrayValue?.first?.numberValue?.literal == literal)
            #expect(String(decoding: value.serialized(), as: UTF8.self) == "[\(literal)]")
        }
        #expect(JSONNumber(literal: "1.0") != JSONNumber(literal: "1"))
    }

    @Test(arguments: ["", "-", "01", " 1", "1 ", "+1", "1.", ".1", "1e", "0x10", "NaN", "Infinity", "1,"])
    func literalInitializerRejectsNonNumbers(_ text: String) {
        #expect(JSONNumber(literal: text) == nil)
    }

    @Test(arguments: ["0", "-0", "1.5", "1e9", "-1.25E-10"])
    func literalInitializerAcceptsNumbers(_ text: String) {
        #expect(JSONNumber(literal: text)?.literal == text)
    }

    @Test func fromSwiftValues() {
        #expect(JSONNumber(Int64.min).literal == "-9223372036854775808")
        #expect(JSONNumber(7).int == 7)
        #expect(JSONNumber(Double.nan) == nil)
        #expect(JSONNumber(Double.infinity) == nil)
        #expect(JSONNumber(0.1)?.double == 0.1)
        #expect(JSONNumber(1e300)?.double == 1e300)
        // Every literal Swift prints for a double is valid JSON and reads back exactly.
        for value in [0.0, -0.0, 1e-5, 1e21, Double.leastNonzeroMagnitude, 1.7976931348623157e308, 100.0, -3.25] {
            let number = JSONNumber(value)
            #expect(number.flatMap { JSONNumber(literal: $0.literal) } != nil, "\(value)")
            #expect(number?.double == value)
        }
        #expect(JSONNumber(1.0)?.isInteger == false)
        #expect(JSONNumber(10).isInteger)
    }
}
