import JSON
import TestSupport
import Testing

/// One document the parser must accept, and the value it must produce.
struct ValidCase: CustomTestStringConvertible, Sendable {
    /// JSONTestSuite-style name (`y_…`); the cases are our own, written after that suite's naming.
    let name: String
    /// The document.
    let bytes: [UInt8]
    /// The expected value.
    let value: JSONValue

    init(_ name: String, _ text: String, _ value: JSONValue) {
        self.name = name
        self.bytes = Array(text.utf8)
        self.value = value
    }

    init(_ name: String, bytes: [UInt8], _ value: JSONValue) {
        self.name = name
        self.bytes = bytes
        self.value = value
    }

    var testDescription: String { name }
}

/// One document the parser must reject, and where and why.
struct InvalidCase: CustomTestStringConvertible, Sendable {
    /// JSONTestSuite-style name (`n_…`); the cases are our own, written after that suite's naming.
    let name: String
    /// The document.
    let bytes: [UInt8]
    /// The expected reason.
    let reason: JSONError.Reason
    /// The expected byte offset.
    let offset: Int

    init(_ name: String, _ text: String, _ reason: JSONError.Reason, at offset: Int) {
        self.name = name
        self.bytes = Array(text.utf8)
        self.reason = reason
        self.offset = offset
    }

    init(_ name: String, bytes: [UInt8], _ reason: JSONError.Reason, at offset: Int) {
        self.name = name
        self.bytes = bytes
        self.reason = reason
        self.offset = offset
    }

    var testDescription: String { name }
}

/// A number value from its literal.
func num(_ literal: String) -> JSONValue { .number(JSONNumber(literal: literal)!) }

/// Documents RFC 8259 allows (grammar of sections 2–7; UTF-8 per section 8.1).
let validCases: [ValidCase] = [
    ValidCase("y_object_empty", "{}", .object([:])),
    ValidCase("y_array_empty", "[]", .array([])),
    ValidCase("y_structure_lonely_int (RFC 8259 §2: any value at top level)", "42", num("42")),
    ValidCase("y_structure_lonely_string", #""asd""#, .string("asd")),
    ValidCase("y_structure_lonely_null", "null", .null),
    ValidCase("y_structure_lonely_true", "true", .bool(true)),
    ValidCase("y_structure_lonely_false", "false", .bool(false)),
    ValidCase("y_structure_whitespace_all_four (§2: ws)", " \t\r\n[ \t\r\n]\n\r\t ", .array([])),
    ValidCase("y_number_negative_zero", "-0", num("-0")),
    ValidCase("y_number_real_exponent", "[1.5e+10]", .array([num("1.5e+10")])),
    ValidCase("y_number_capital_E_negative_exp", "1E-3", num("1E-3")),
    ValidCase("y_number_huge_exp (§6: range is implementation-defined; kept as text)", "1e400", num("1e400")),
    ValidCase("y_number_very_big_int", "123456789012345678901234567890", num("123456789012345678901234567890")),
    ValidCase("y_number_zero_fraction", "0.0", num("0.0")),
    ValidCase(
        "y_string_all_short_escapes (§7)", #""\"\\\/\b\f\n\r\t""#, .string("\"\\/\u{8}\u{C}\n\r\t")),
    ValidCase("y_string_unicode_escape_lower", #""\u00e9""#, .string("é")),
    ValidCase("y_string_unicode_escape_upper", #""\u00E9""#, .string("é")),
    ValidCase("y_string_surrogate_pair (§7: UTF-16 pair)", #""\ud83d\ude00""#, .string("😀")),
    ValidCase("y_string_escaped_nul", #""\u0000""#, .string("\u{0}")),
    ValidCase("y_string_raw_utf8", bytes: [0x22, 0xC3, 0xA9, 0xF0, 0x9F, 0x98, 0x80, 0x22], .string("é😀")),
    ValidCase("y_string_last_scalar_U+10FFFF", bytes: [0x22, 0xF4, 0x8F, 0xBF, 0xBF, 0x22], .string("\u{10FFFF}")),
    ValidCase("y_string_noncharacter_U+FFFF", bytes: [0x22, 0xEF, 0xBF, 0xBF, 0x22], .string("\u{FFFF}")),
    ValidCase("y_string_last_before_surrogates_U+D7FF", bytes: [0x22, 0xED, 0x9F, 0xBF, 0x22], .string("\u{D7FF}")),
    ValidCase("y_string_DEL_unescaped", bytes: [0x22, 0x7F, 0x22], .string("\u{7F}")),
    ValidCase("y_string_escape_then_utf8", bytes: [0x22, 0x5C, 0x6E, 0xC3, 0xA9, 0x22], .string("\né")),
    ValidCase(
        "y_object_member_order_kept", #"{"b":1,"a":[true,null]}"#,
        .object(["b": num("1"), "a": .array([.bool(true), .null])])),
    ValidCase("y_object_keys_differ_by_case", #"{"a":1,"A":2}"#, .object(["a": num("1"), "A": num("2")])),
    ValidCase("y_object_escaped_key", #"{"a":1,"\u0062":2}"#, .object(["a": num("1"), "b": num("2")])),
    ValidCase("y_object_empty_key", #"{"":0}"#, .object(["": num("0")])),
    ValidCase(
        "y_client_b_request_body (POST /presigned-url, docs/openapi.json)",
        #"{"contentType":"image/jpeg","imageKey":"0F8FAD5B-D9CB-469F-A165-70867728950E"}"#,
        .object(["contentType": "image/jpeg", "imageKey": "0F8FAD5B-D9CB-469F-A165-70867728950E"])),
]

/// Documents RFC 8259 (or our stricter profile: duplicates, limits) rejects.
let invalidCases: [InvalidCase] = [
    InvalidCase("n_structure_no_data", "", .unexpectedEnd, at: 0),
    InvalidCase("n_structure_whitespace_only", " \n", .unexpectedEnd, at: 2),
    InvalidCase("n_array_trailing_comma (§5)", "[1,]", .trailingComma, at: 3),
    InvalidCase("n_array_trailing_comma_space", "[1, ]", .trailingComma, at: 4),
    InvalidCase("n_object_trailing_comma (§4)", #"{"a":1,}"#, .trailingComma, at: 7),
    InvalidCase("n_array_double_comma", "[1,,2]", .unexpectedByte(UInt8(ascii: ",")), at: 3),
    InvalidCase("n_array_leading_comma", "[,1]", .unexpectedByte(UInt8(ascii: ",")), at: 1),
    InvalidCase("n_array_missing_comma", "[1 2]", .unexpectedByte(UInt8(ascii: "2")), at: 3),
    InvalidCase("n_array_unclosed", "[1", .unexpectedEnd, at: 2),
    InvalidCase("n_number_leading_zero (§6: int = zero / digit1-9 *DIGIT)", "01", .leadingZero, at: 0),
    InvalidCase("n_number_negative_leading_zero", "[-012]", .leadingZero, at: 1),
    InvalidCase("n_number_NaN (§6: not permitted)", "NaN", .unexpectedByte(UInt8(ascii: "N")), at: 0),
    InvalidCase("n_number_Infinity", "Infinity", .unexpectedByte(UInt8(ascii: "I")), at: 0),
    InvalidCase("n_number_minus_Infinity", "-Infinity", .invalidNumber, at: 1),
    InvalidCase("n_number_plus_sign", "+1", .unexpectedByte(UInt8(ascii: "+")), at: 0),
    InvalidCase("n_number_starting_with_dot", ".5", .unexpectedByte(UInt8(ascii: ".")), at: 0),
    InvalidCase("n_number_ending_with_dot", "1.", .invalidNumber, at: 2),
    InvalidCase("n_number_dot_then_exp", "1.e3", .invalidNumber, at: 2),
    InvalidCase("n_number_exp_without_digits", "1e", .invalidNumber, at: 2),
    InvalidCase("n_number_exp_sign_only", "1e+", .invalidNumber, at: 3),
    InvalidCase("n_number_minus_only", "-", .invalidNumber, at: 1),
    InvalidCase("n_number_hex", "0x1F", .trailingData, at: 1),
    InvalidCase("n_structure_trailing_garbage", "[]x", .trailingData, at: 2),
    InvalidCase("n_structure_two_values", "1 2", .trailingData, at: 2),
    InvalidCase("n_structure_comment", "[1]//", .trailingData, at: 3),
    InvalidCase("n_structure_nul_outside_string", "[\u{0}]", .unexpectedByte(0), at: 1),
    InvalidCase(
        "n_structure_UTF8_BOM (§8.1: a parser may ignore it; we do not)", bytes: [0xEF, 0xBB, 0xBF, 0x7B, 0x7D],
        .unexpectedByte(0xEF), at: 0),
    InvalidCase("n_literal_capitalized", "True", .unexpectedByte(UInt8(ascii: "T")), at: 0),
    InvalidCase("n_literal_truncated", "tru", .unexpectedEnd, at: 3),
    InvalidCase("n_literal_misspelled", "nul1", .unexpectedByte(UInt8(ascii: "1")), at: 3),
    InvalidCase("n_string_unescaped_tab (§7)", "\"\t\"", .controlCharacterInString(0x09), at: 1),
    InvalidCase("n_string_unescaped_newline", "[\"a\nb\"]", .controlCharacterInString(0x0A), at: 3),
    InvalidCase("n_string_unescaped_ctrl_after_escape", "\"\\n\u{1F}\"", .controlCharacterInString(0x1F), at: 3),
    InvalidCase("n_string_invalid_escape", #""\x41""#, .invalidEscape, at: 1),
    InvalidCase("n_string_escaped_single_quote", #""\'""#, .invalidEscape, at: 1),
    InvalidCase("n_string_bad_hex_digit", #""\u12G4""#, .invalidEscape, at: 5),
    InvalidCase("n_string_short_unicode_escape", #""\u12""#, .invalidEscape, at: 5),
    InvalidCase("n_string_lone_low_surrogate", #""\udc00""#, .loneSurrogate(0xDC00), at: 1),
    InvalidCase("n_string_lone_high_surrogate", #""\ud800""#, .loneSurrogate(0xD800), at: 1),
    InvalidCase("n_string_high_surrogate_then_text", #""\ud800abc""#, .loneSurrogate(0xD800), at: 1),
    InvalidCase("n_string_high_surrogate_then_BMP", #""\ud800\u0041""#, .loneSurrogate(0xD800), at: 1),
    InvalidCase("n_string_two_high_surrogates", #""\ud800\ud800""#, .loneSurrogate(0xD800), at: 1),
    InvalidCase("n_string_unterminated", #""abc"#, .unexpectedEnd, at: 4),
    InvalidCase("n_string_single_quotes", "['a']", .unexpectedByte(UInt8(ascii: "'")), at: 1),
    InvalidCase("n_object_duplicate_key", #"{"a":1,"a":2}"#, .duplicateKey("a"), at: 7),
    InvalidCase("n_object_duplicate_key_via_escape", #"{"a":1,"\u0061":2}"#, .duplicateKey("a"), at: 7),
    InvalidCase("n_object_duplicate_nested", #"{"x":{"k":1,"k":1}}"#, .duplicateKey("k"), at: 12),
    InvalidCase("n_object_unquoted_key", "{a:1}", .unexpectedByte(UInt8(ascii: "a")), at: 1),
    InvalidCase("n_object_missing_colon", #"{"a" 1}"#, .unexpectedByte(UInt8(ascii: "1")), at: 5),
    InvalidCase("n_object_missing_value", #"{"a":}"#, .unexpectedByte(UInt8(ascii: "}")), at: 5),
    InvalidCase("n_object_non_string_key", "{1:1}", .unexpectedByte(UInt8(ascii: "1")), at: 1),
    // RFC 3629, section 4: ill-formed UTF-8 inside strings.
    InvalidCase("n_string_overlong_2byte_slash", bytes: [0x22, 0xC0, 0xAF, 0x22], .invalidUTF8, at: 1),
    InvalidCase("n_string_overlong_C1", bytes: [0x22, 0xC1, 0xBF, 0x22], .invalidUTF8, at: 1),
    InvalidCase("n_string_overlong_3byte", bytes: [0x22, 0xE0, 0x80, 0xAF, 0x22], .invalidUTF8, at: 1),
    InvalidCase("n_string_overlong_4byte", bytes: [0x22, 0xF0, 0x80, 0x80, 0xAF, 0x22], .invalidUTF8, at: 1),
    InvalidCase("n_string_UTF8_encoded_surrogate_D800", bytes: [0x22, 0xED, 0xA0, 0x80, 0x22], .invalidUTF8, at: 1),
    InvalidCase("n_string_UTF8_encoded_surrogate_DFFF", bytes: [0x22, 0xED, 0xBF, 0xBF, 0x22], .invalidUTF8, at: 1),
    InvalidCase("n_string_above_U+10FFFF", bytes: [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], .invalidUTF8, at: 1),
    InvalidCase("n_string_F5_lead", bytes: [0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], .invalidUTF8, at: 1),
    InvalidCase("n_string_FF_byte", bytes: [0x22, 0xFF, 0x22], .invalidUTF8, at: 1),
    InvalidCase("n_string_lone_continuation", bytes: [0x22, 0x61, 0x80, 0x22], .invalidUTF8, at: 2),
    InvalidCase("n_string_truncated_2byte", bytes: [0x22, 0xC3, 0x22], .invalidUTF8, at: 1),
    InvalidCase("n_string_truncated_3byte_third", bytes: [0x22, 0xE2, 0x82, 0x22], .invalidUTF8, at: 1),
    InvalidCase("n_string_truncated_at_end_of_input", bytes: [0x22, 0xE2, 0x82], .invalidUTF8, at: 1),
    InvalidCase(
        "n_string_invalid_utf8_after_escape", bytes: [0x22, 0x5C, 0x6E, 0xC0, 0xAF, 0x22], .invalidUTF8, at: 3),
    InvalidCase(
        "n_object_invalid_utf8_in_key", bytes: [0x7B, 0x22, 0xC0, 0x22, 0x3A, 0x31, 0x7D], .invalidUTF8, at: 2),
    InvalidCase("n_structure_utf8_outside_string", bytes: [0x5B, 0xC3, 0xA9, 0x5D], .unexpectedByte(0xC3), at: 1),
]

@Suite struct JSONParserTests {
    @Test(arguments: validCases)
    func acceptsValidDocument(_ testCase: ValidCase) throws {
        let value = try JSONValue(parsing: testCase.bytes)
        #expect(value == testCase.value)
    }

    @Test(arguments: invalidCases)
    func rejectsInvalidDocument(_ testCase: InvalidCase) {
        let error = #expect(throws: JSONError.self) { try JSONValue(parsing: testCase.bytes) }
        #expect(error?.reason == testCase.reason)
        #expect(error?.offset == testCase.offset)
    }

    /// Long strings step eight bytes at a time, then to the first byte that needs a look: an escape, a
    /// UTF-8 sequence, a control character, ill-formed UTF-8 or the end of input at every position of
    /// strings up to 24 bytes, each found where the byte-by-byte definition finds it.
    @Test func stringsFindEveryByteAtEveryPosition() throws {
        let letters = Array("abcdefghijklmnopqrstuvwxyz".utf8)
        for length in 0..<24 {
            for position in 0...length {
                let prefix = Array(letters[..<position])
                let suffix = Array(letters[position..<length])
                let text = { (middle: String) in
                    String(decoding: prefix, as: UTF8.self) + middle + String(decoding: suffix, as: UTF8.self)
                }
                let quote = UInt8(ascii: "\"")
                let cases: [([UInt8], String)] = [
                    ([], text("")), (Array(#"\n"#.utf8), text("\n")), (Array(#"\""#.utf8), text("\"")),
                    ([0xC3, 0xA9], text("é")), ([0xF0, 0x9F, 0x98, 0x80], text("😀")), ([0x7F], text("\u{7F}")),
                ]
                for (middle, expected) in cases {
                    let document = [quote] + prefix + middle + suffix + [quote]
                    #expect(try JSONValue(parsing: document) == .string(expected), "\(document)")
                }
                let failures: [([UInt8], JSONError.Reason)] = [
                    ([0x1F], .controlCharacterInString(0x1F)), ([0x0A], .controlCharacterInString(0x0A)),
                    ([0xC0, 0xAF], .invalidUTF8), ([0xFF], .invalidUTF8),
                ]
                for (middle, reason) in failures {
                    let document = [quote] + prefix + middle + suffix + [quote]
                    #expect(throws: JSONError(offset: 1 + position, reason: reason), "\(document)") {
                        try JSONValue(parsing: document)
                    }
                }
                let unterminated = [quote] + prefix + suffix
                #expect(throws: JSONError(offset: unterminated.count, reason: .unexpectedEnd)) {
                    try JSONValue(parsing: unterminated)
                }
            }
        }
    }

    @Test func depthLimitDefaultIs64() throws {
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(try JSONValue(parsing: ok).arrayValue != nil)
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(throws: JSONError(offset: 64, reason: .tooDeep(limit: 64))) { try JSONValue(parsing: deep) }
        let deepObjects = String(repeating: #"{"a":"#, count: 65) + "1" + String(repeating: "}", count: 65)
        #expect(throws: JSONError(offset: 64 * 5, reason: .tooDeep(limit: 64))) { try JSONValue(parsing: deepObjects) }
    }

    @Test func depthLimitIsConfigurable() throws {
        let limits = JSONParser.Limits(maxDepth: 2)
        #expect(try JSONValue(parsing: #"{"a":[1]}"#, limits: limits) == ["a": [1]])
        #expect(throws: JSONError(offset: 6, reason: .tooDeep(limit: 2))) {
            try JSONValue(parsing: #"{"a":[[1]]}"#, limits: limits)
        }
        // Siblings do not add up: depth is nesting, not count.
        #expect(try JSONValue(parsing: "[[],[],[[]]]", limits: JSONParser.Limits(maxDepth: 3)).arrayValue?.count == 3)
    }

    @Test func sizeLimitIsConfigurable() throws {
        let limits = JSONParser.Limits(maxBytes: 10)
        #expect(try JSONValue(parsing: #"["123456"]"#, limits: limits) == ["123456"])
        #expect(throws: JSONError(offset: 10, reason: .tooLarge(limit: 10))) {
            try JSONValue(parsing: #"["1234567"]"#, limits: limits)
        }
    }

    @Test func largeObjectsDetectDuplicatesAndKeepOrder() throws {
        let keys = (0..<200).map { "k\($0)" }
        let body = keys.map { #""\#($0)":\#($0.dropFirst())"# }.joined(separator: ",")
        let value = try JSONValue(parsing: "{" + body + "}")
        #expect(value.objectValue?.keys == keys)
        #expect(value["k150"]?.intValue == 150)
        let error = #expect(throws: JSONError.self) { try JSONValue(parsing: "{" + body + #","k3":0}"#) }
        #expect(error?.reason == .duplicateKey("k3"))
    }

    @Test func parsesFromRawBufferAndString() throws {
        let bytes = Array(#"{"n":[1,2]}"#.utf8)
        let fromRaw = try bytes.withUnsafeBytes { raw in try JSONValue(parsing: raw) }
        #expect(fromRaw == ["n": [1, 2]])
        #expect(try JSONValue(parsing: #"{"n":[1,2]}"#) == fromRaw)
    }

    @Test func messagesDoNotQuoteTheInput() {
        let secret = "hunter2-secret-value"
        for document in [#"{"\#(secret)":1,"\#(secret)":2}"#, #"["\#(secret)"#, #"{"\#(secret)" 1}"#] {
            do {
                _ = try JSONValue(parsing: document)
                Issue.record("accepted \(document)")
            } catch {
                #expect(!error.message.contains(secret))
                #expect(!error.description.contains(secret))
            }
        }
    }

    /// Every proper prefix of a complete array or object document is incomplete, hence rejected.
    @Test(arguments: validCases.filter { $0.bytes.first == UInt8(ascii: "[") || $0.bytes.first == UInt8(ascii: "{") })
    func rejectsEveryTruncation(_ testCase: ValidCase) {
        for length in 0..<testCase.bytes.count {
            let prefix = Array(testCase.bytes[..<length])
            #expect(throws: JSONError.self, "prefix of length \(length)") { try JSONValue(parsing: prefix) }
        }
    }

    /// Deterministic mutation fuzzing: whatever the parser accepts must serialize and parse back to itself.
    @Test func mutatedDocumentsRoundTripOrFail() {
        var generator = SplitMix64(seed: 0x5EED_2024)
        let seeds = validCases.map(\.bytes) + invalidCases.map(\.bytes)
        let interesting: [UInt8] = [
            0x22, 0x5C, 0x2C, 0x3A, 0x5B, 0x5D, 0x7B, 0x7D, 0x30, 0x2D, 0x65, 0x2E, 0x75, 0x80, 0xC3, 0xED,
        ]
        var accepted = 0
        for _ in 0..<20_000 {
            var document = seeds[Int(generator.next() % UInt64(seeds.count))]
            for _ in 0..<(1 + generator.next() % 3) where !document.isEmpty {
                let position = Int(generator.next() % UInt64(document.count))
                switch generator.next() % 3 {
                case 0: document[position] = interesting[Int(generator.next() % UInt64(interesting.count))]
                case 1: document.remove(at: position)
                default: document.insert(UInt8(truncatingIfNeeded: generator.next()), at: position)
                }
            }
            guard let value = try? JSONValue(parsing: document) else { continue }
            accepted += 1
            #expect((try? JSONValue(parsing: value.serialized())) == value)
        }
        #expect(accepted > 100)
    }
}
