/// JSON string quoting for log lines (the access log and `LogSink.line`), so the server needs no JSON
/// module: a log value can never break its line.
enum LogText {
    /// Appends `value` quoted, with `"`, `\` and U+0000–U+001F escaped (RFC 8259, section 7: control
    /// characters as `\u00XX` in lower-case hex; `/` and non-ASCII characters as they are).
    static func appendQuoted(_ value: String, to buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "\""))
        let done: Void? = value.utf8.withContiguousStorageIfAvailable { appendEscaped($0, to: &buffer) }
        if done == nil {
            var copy = value
            copy.withUTF8 { appendEscaped($0, to: &buffer) }
        }
        buffer.append(UInt8(ascii: "\""))
    }

    /// Appends the escaped form of `utf8`, copying runs that need no escape in one go (found eight
    /// bytes at a time).
    static func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>, to buffer: inout [UInt8]) {
        guard let base = utf8.baseAddress else { return }
        let count = utf8.count
        var runStart = 0
        var position = 0
        while position < count {
            while position &+ 8 <= count
                && isEscapeFree(UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
            {
                position &+= 8
            }
            if position >= count { break }
            let byte = base[position]
            position += 1
            if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") { continue }
            if runStart < position - 1 {
                buffer.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: position - 1 - runStart))
            }
            buffer.append(UInt8(ascii: "\\"))
            if byte >= 0x20 {
                buffer.append(byte)
            } else {
                buffer.append(UInt8(ascii: "u"))
                buffer.append(UInt8(ascii: "0"))
                buffer.append(UInt8(ascii: "0"))
                buffer.append(hexDigit(byte >> 4))
                buffer.append(hexDigit(byte & 0x0F))
            }
            runStart = position
        }
        if runStart < count {
            buffer.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: count - runStart))
        }
    }

    /// True when none of the eight bytes is below 0x20, `"` or `\`.
    @inline(__always)
    static func isEscapeFree(_ x: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        // Bytes below 0x20: subtracting 0x20 borrows into the high bit (for bytes < 0x80).
        let control = (x &- ones &* 0x20) & ~x
        let quote = x ^ (ones &* UInt64(UInt8(ascii: "\"")))
        let backslash = x ^ (ones &* UInt64(UInt8(ascii: "\\")))
        let hits = control | ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)
        return hits & highs == 0
    }

    @inline(__always)
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
