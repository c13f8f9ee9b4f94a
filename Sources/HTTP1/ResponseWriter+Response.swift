/// The server's whole-response serialisation: one buffer, no formatting per request.
extension ResponseWriter {
    /// Appends a complete response: the cached status line, `dateLine` (a whole `Date: …\r\n` line the
    /// caller caches per second), `Content-Length` (unless the status has no body), `headers` in order,
    /// `X-Request-Id` when given, `Connection: close` when `close`, the blank line, then `body` unless
    /// `omitBody` (HEAD) or the status has no body.
    ///
    /// RFC 9112 §6.3: 1xx, 204 and 304 carry no body and no Content-Length. As in `appendHead`, CR, LF
    /// and NUL inside a header name or value (the request id included) are written as a space, so a
    /// response can never be split.
    public static func appendResponse(
        status: Int, dateLine: [UInt8], headers: [(name: String, value: String)], requestId: String?,
        close: Bool, body: [UInt8], omitBody: Bool, into out: inout [UInt8]
    ) {
        switch status {
        case 200: appendLiteral("HTTP/1.1 200 OK\r\n", into: &out)  // the hot statuses need no table
        case 201: appendLiteral("HTTP/1.1 201 Created\r\n", into: &out)
        default: out.append(contentsOf: StatusLine.bytes(status))
        }
        out.append(contentsOf: dateLine)
        let noBody = hasNoBody(status)
        if !noBody {
            appendLiteral("Content-Length: ", into: &out)
            appendDecimal(body.count, to: &out)
            out.append(ASCII.cr)
            out.append(ASCII.lf)
        }
        // Through the buffer pointer the fields are borrowed, not copied (no retain per string).
        headers.withUnsafeBufferPointer { fields in
            for i in fields.indices {
                let line = out.count
                appendUTF8(fields[i].name, into: &out)
                out.append(ASCII.colon)
                out.append(ASCII.sp)
                appendUTF8(fields[i].value, into: &out)
                guardLine(&out, from: line)
                out.append(ASCII.cr)
                out.append(ASCII.lf)
            }
        }
        if let requestId {
            let line = out.count
            appendLiteral("X-Request-Id: ", into: &out)
            appendUTF8(requestId, into: &out)
            guardLine(&out, from: line)
            out.append(ASCII.cr)
            out.append(ASCII.lf)
        }
        if close { appendLiteral("Connection: close\r\n", into: &out) }
        out.append(ASCII.cr)
        out.append(ASCII.lf)
        if !omitBody && !noBody { out.append(contentsOf: body) }
    }

    /// Appends an interim response such as `HTTP/1.1 100 Continue\r\n\r\n` (1xx: no fields, no body).
    public static func appendInterim(status: Int, into out: inout [UInt8]) {
        precondition((100...199).contains(status), "status \(status) is not an interim status")
        out.append(contentsOf: StatusLine.bytes(status))
        out.append(ASCII.cr)
        out.append(ASCII.lf)
    }

    /// True for the statuses that never carry a body: 1xx, 204 and 304.
    @inline(__always)
    public static func hasNoBody(_ status: Int) -> Bool {
        status == 204 || status == 304 || (status >= 100 && status < 200)
    }

    /// Appends the decimal digits of `value`: up to three digits inline (statuses, most lengths and
    /// durations), longer values formatted on the stack.
    @inlinable @inline(__always)
    public static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        if value >= 0 && value < 1000 {
            if value >= 100 { out.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value / 100)) }
            if value >= 10 { out.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value / 10 % 10)) }
            out.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value % 10))
            return
        }
        appendLongDecimal(value, to: &out)
    }

    /// `appendDecimal` for values of four digits or more, and negative ones.
    @usableFromInline
    static func appendLongDecimal(_ value: Int, to out: inout [UInt8]) {
        var v = value.magnitude
        if value < 0 { out.append(UInt8(ascii: "-")) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = 20
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: v % 10)
                v /= 10
            } while v > 0
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start..<20]))
        }
    }

    /// Appends a static ASCII literal.
    @inline(__always)
    private static func appendLiteral(_ text: StaticString, into buffer: inout [UInt8]) {
        buffer.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends `text`'s UTF-8 in one copy, then writes any CR, LF or NUL in the copy as a space.
    @inline(__always)
    static func appendGuarded(_ text: String, into buffer: inout [UInt8]) {
        let start = buffer.count
        appendUTF8(text, into: &buffer)
        guardLine(&buffer, from: start)
    }

    /// Appends `text`'s UTF-8 in one copy, unchecked (the caller guards the line).
    @inline(__always)
    private static func appendUTF8(_ text: String, into buffer: inout [UInt8]) {
        let done: Void? = text.utf8.withContiguousStorageIfAvailable { buffer.append(contentsOf: $0) }
        if done == nil {
            var copy = text
            copy.withUTF8 { buffer.append(contentsOf: $0) }
        }
    }

    /// Writes every CR, LF and NUL in `buffer[start...]` (one field line without its CRLF) as a
    /// space; one scan per line, eight bytes at a time.
    @inline(__always)
    static func guardLine(_ buffer: inout [UInt8], from start: Int) {
        let clean = buffer.withUnsafeBufferPointer { isSplitFree(UnsafeBufferPointer(rebasing: $0[start...])) }
        if clean { return }
        for i in start..<buffer.count {
            let byte = buffer[i]
            if byte == ASCII.cr || byte == ASCII.lf || byte == 0 { buffer[i] = ASCII.sp }
        }
    }

    /// True when `bytes` holds no CR, LF or NUL: eight bytes at a time, the last word overlapping the
    /// one before it (so only inputs under eight bytes are checked byte by byte).
    @inline(__always)
    static func isSplitFree(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        if count < 8 {
            for i in 0..<count {
                let b = base[i]
                if b == ASCII.cr || b == ASCII.lf || b == 0 { return false }
            }
            return true
        }
        var i = 0
        while true {
            if !isSplitFree(word: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)) { return false }
            if i == count &- 8 { return true }
            i = Swift.min(i &+ 8, count &- 8)
        }
    }

    /// True when none of the eight bytes is CR, LF or NUL. First the cheap "some byte below 0x0E"
    /// test (Bit Twiddling Hacks' has-less-than, exact for limits up to 128); only a word that has one
    /// (HTAB, or a real CR/LF/NUL) gets the exact has-zero-byte tests on the word and its XORs.
    @inline(__always)
    static func isSplitFree(word x: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        if (x &- ones &* 0x0E) & ~x & highs == 0 { return true }
        let cr = x ^ (ones &* UInt64(ASCII.cr))
        let lf = x ^ (ones &* UInt64(ASCII.lf))
        let hit = ((x &- ones) & ~x) | ((cr &- ones) & ~cr) | ((lf &- ones) & ~lf)
        return hit & highs == 0
    }
}
