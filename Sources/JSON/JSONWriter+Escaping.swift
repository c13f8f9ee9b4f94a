extension JSONWriter {
    /// Appends `value` as a JSON string: quoted, with `"`, `\` and U+0000–U+001F escaped.
    ///
    /// RFC 8259, section 7: those are the characters that must be escaped. Control characters are
    /// written as `\u00XX` (lower-case hex); `/` and non-ASCII characters are written as they are.
    public static func appendQuoted(_ value: String, to buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "\""))
        let done: Void? = value.utf8.withContiguousStorageIfAvailable { appendEscaped($0, to: &buffer) }
        if done == nil {
            var copy = value
            copy.withUTF8 { appendEscaped($0, to: &buffer) }
        }
        buffer.append(UInt8(ascii: "\""))
    }

    /// Appends the escaped form of `utf8`, without quotes, copying unescaped runs in one go.
    ///
    /// Runs are found eight bytes at a time (`ByteScan`), then byte by byte around an escape.
    static func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>, to buffer: inout [UInt8]) {
        guard let base = utf8.baseAddress else { return }
        let count = utf8.count
        var runStart = 0
        var position = 0
        while position < count {
            while position &+ 8 <= count
                && ByteScan.isEscapeFree(UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
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
                buffer.append(hexDigits[Int(byte >> 4)])
                buffer.append(hexDigits[Int(byte & 0x0F)])
            }
            runStart = position
        }
        if runStart < count {
            buffer.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: count - runStart))
        }
    }

    /// Appends a literal that is already JSON (a fragment such as `{"key":`), copied as is.
    @inline(__always)
    public static func appendLiteral(_ json: StaticString, to buffer: inout [UInt8]) {
        buffer.append(contentsOf: UnsafeBufferPointer(start: json.utf8Start, count: json.utf8CodeUnitCount))
    }

    /// Lower-case hexadecimal digits.
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends the decimal digits of `value`, formatted on the stack.
    public static func appendDecimal(_ value: Int64, to buffer: inout [UInt8]) {
        if value < 0 { buffer.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = 20
            repeat {
                start -= 1
                digits[start] = UInt8(truncatingIfNeeded: magnitude % 10) &+ UInt8(ascii: "0")
                magnitude /= 10
            } while magnitude != 0
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start..<20]))
        }
    }
}
