/// Decodes a chunked body (RFC 9112 section 7.1) incrementally. Pure.
///
/// Feed it bytes as they arrive; it appends the chunk data to an output buffer and stops after
/// the last chunk's trailer section, leaving any following bytes unconsumed. Chunk extensions
/// and trailer fields are skipped.
struct ChunkedBodyDecoder {
    /// Where in the grammar the decoder is.
    private enum State: Equatable {
        /// Reading the hexadecimal size; `digits` so far.
        case size(digits: Int)
        /// Skipping a chunk extension up to the line end.
        case extensionText
        /// After the CR of the size line, expecting LF.
        case sizeLineFeed
        /// Copying chunk data; that many bytes are left.
        case data(remaining: Int)
        /// After the data, expecting CR or LF.
        case dataEnd
        /// After the CR that ends the data, expecting LF.
        case dataLineFeed
        /// At the start of a trailer line (an empty line ends the body).
        case trailerStart
        /// Inside a trailer field line.
        case trailerLine
        /// After the CR of a trailer line; `empty` when the line was empty.
        case trailerLineFeed(empty: Bool)
        /// The body is complete.
        case done
    }

    /// The state.
    private var state = State.size(digits: 0)
    /// The size being read.
    private var size = 0
    /// Bytes of trailer section seen, bounded.
    private var trailerBytes = 0

    /// The most trailer bytes accepted.
    static let maxTrailerBytes = 16 << 10

    /// True once the last chunk and its trailer section were read.
    var isComplete: Bool { state == .done }

    /// Decodes from `input`, appending data to `output`; returns how many bytes were consumed
    /// (fewer than `input.count` only when the body is complete).
    mutating func decode(_ input: UnsafeRawBufferPointer, into output: inout [UInt8]) throws(HTTPClientError) -> Int {
        var index = 0
        while index < input.count {
            let byte = input[index]
            switch state {
            case .size(let digits):
                if let value = Self.hexValue(byte) {
                    guard digits < 15 else { throw .malformedResponse("chunk size too large") }
                    size = size << 4 | value
                    state = .size(digits: digits + 1)
                } else {
                    guard digits > 0 else { throw .malformedResponse("chunk size missing") }
                    switch byte {
                    case UInt8(ascii: ";"), UInt8(ascii: " "), UInt8(ascii: "\t"): state = .extensionText
                    case UInt8(ascii: "\r"): state = .sizeLineFeed
                    case UInt8(ascii: "\n"): endSizeLine()
                    default: throw .malformedResponse("invalid character in a chunk size")
                    }
                }
            case .extensionText:
                if byte == UInt8(ascii: "\r") {
                    state = .sizeLineFeed
                } else if byte == UInt8(ascii: "\n") {
                    endSizeLine()
                } else if byte < 0x20 && byte != UInt8(ascii: "\t") || byte == 0x7f {
                    throw .malformedResponse("control character in a chunk extension")
                }
            case .sizeLineFeed:
                guard byte == UInt8(ascii: "\n") else { throw .malformedResponse("CR without LF after a chunk size") }
                endSizeLine()
            case .data(let remaining):
                let count = min(remaining, input.count - index)
                output.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[index..<(index + count)]))
                index += count
                state = remaining == count ? .dataEnd : .data(remaining: remaining - count)
                continue
            case .dataEnd:
                if byte == UInt8(ascii: "\r") {
                    state = .dataLineFeed
                } else if byte == UInt8(ascii: "\n") {
                    state = .size(digits: 0)
                } else {
                    throw .malformedResponse("chunk data longer than its size")
                }
            case .dataLineFeed:
                guard byte == UInt8(ascii: "\n") else { throw .malformedResponse("CR without LF after chunk data") }
                state = .size(digits: 0)
            case .trailerStart:
                try countTrailerByte()
                if byte == UInt8(ascii: "\r") {
                    state = .trailerLineFeed(empty: true)
                } else if byte == UInt8(ascii: "\n") {
                    state = .done
                    return index + 1
                } else {
                    state = .trailerLine
                }
            case .trailerLine:
                try countTrailerByte()
                if byte == UInt8(ascii: "\r") {
                    state = .trailerLineFeed(empty: false)
                } else if byte == UInt8(ascii: "\n") {
                    state = .trailerStart
                }
            case .trailerLineFeed(let empty):
                try countTrailerByte()
                guard byte == UInt8(ascii: "\n") else {
                    throw .malformedResponse("CR without LF in the trailer section")
                }
                if empty {
                    state = .done
                    return index + 1
                }
                state = .trailerStart
            case .done:
                return index
            }
            index += 1
        }
        return index
    }

    /// After a size line: data follows, or the trailer section after the last (zero) chunk.
    private mutating func endSizeLine() {
        state = size == 0 ? .trailerStart : .data(remaining: size)
        size = 0
    }

    /// Counts one trailer byte against the limit.
    private mutating func countTrailerByte() throws(HTTPClientError) {
        trailerBytes += 1
        guard trailerBytes <= Self.maxTrailerBytes else { throw .malformedResponse("trailer section too long") }
    }

    /// The value of a hexadecimal digit, or nil.
    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return Int(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return Int(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }
}
