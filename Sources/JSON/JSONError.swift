/// A document that is not strict RFC 8259 JSON, or that breaks a parser limit.
///
/// `message` is written for a client: it names the problem and never echoes the input.
public struct JSONError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, with its context.
    public enum Reason: Sendable, Equatable {
        /// The input ended inside a value (or held no value at all).
        case unexpectedEnd
        /// A byte that cannot start or continue the value at this place.
        case unexpectedByte(UInt8)
        /// A comma directly before `]` or `}` (RFC 8259, section 4 and 5 grammars).
        case trailingComma
        /// Bytes after the single top-level value.
        case trailingData
        /// Bytes that are not well-formed UTF-8 (RFC 3629, section 4), inside a string.
        case invalidUTF8
        /// A byte below 0x20 inside a string (RFC 8259, section 7: must be escaped).
        case controlCharacterInString(UInt8)
        /// A backslash followed by something other than the escapes of RFC 8259, section 7.
        case invalidEscape
        /// A `\u` escape of a UTF-16 surrogate that is not half of a valid pair.
        case loneSurrogate(UInt16)
        /// A number that does not match the grammar of RFC 8259, section 6.
        case invalidNumber
        /// A number with a superfluous leading zero, such as `01`.
        case leadingZero
        /// A member name that appeared earlier in the same object.
        case duplicateKey(String)
        /// Arrays and objects nested deeper than the limit.
        case tooDeep(limit: Int)
        /// An input longer than the limit, in bytes.
        case tooLarge(limit: Int)
    }

    /// The byte offset in the input where the problem was found.
    public let offset: Int
    /// The problem.
    public let reason: Reason

    /// Makes an error at `offset`.
    public init(offset: Int, reason: Reason) {
        self.offset = offset
        self.reason = reason
    }

    /// A short explanation that is safe to return to a client (it quotes no input).
    public var message: String {
        switch reason {
        case .unexpectedEnd: return "unexpected end of input"
        case .unexpectedByte: return "unexpected character"
        case .trailingComma: return "trailing comma"
        case .trailingData: return "unexpected data after the JSON value"
        case .invalidUTF8: return "invalid UTF-8"
        case .controlCharacterInString: return "unescaped control character in string"
        case .invalidEscape: return "invalid escape sequence"
        case .loneSurrogate: return "unpaired UTF-16 surrogate in \\u escape"
        case .invalidNumber: return "invalid number"
        case .leadingZero: return "number with a leading zero"
        case .duplicateKey: return "duplicate object key"
        case .tooDeep(let limit): return "nesting deeper than \(limit)"
        case .tooLarge(let limit): return "document larger than \(limit) bytes"
        }
    }

    /// `message` followed by the offset.
    public var description: String { "\(message) at byte \(offset)" }
}
