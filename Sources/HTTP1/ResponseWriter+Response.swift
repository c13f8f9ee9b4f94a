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
        out.append(contentsOf: StatusLine.bytes(status))
        out.append(contentsOf: dateLine)
        let noBody = hasNoBody(status)
        if !noBody {
            appendLiteral("Content-Length: ", into: &out)
            appendDecimal(body.count, to: &out)
            out.append(ASCII.cr)
            out.append(ASCII.lf)
        }
        for h in headers {
            appendGuarded(h.name, into: &out)
            out.append(ASCII.colon)
            out.append(ASCII.sp)
            appendGuarded(h.value, into: &out)
            out.append(ASCII.cr)
            out.append(ASCII.lf)
        }
        if let requestId {
            appendLiteral("X-Request-Id: ", into: &out)
            appendGuarded(requestId, into: &out)
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

    /// Appends the decimal digits of a non-negative integer, formatted on the stack.
    @inlinable
    public static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        if value >= 0 && value < 10 {
            out.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value))
            return
        }
        var v = value.magnitude
        if value < 0 { out.append(UInt8(ascii: "-")) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = 20
            while v > 0 {
                start -= 1
                digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: v % 10)
                v /= 10
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start..<20]))
        }
    }

    /// Appends a static ASCII literal.
    @inline(__always)
    private static func appendLiteral(_ text: StaticString, into buffer: inout [UInt8]) {
        buffer.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends `text`'s UTF-8 in one copy when it holds no CR, LF or NUL (checked eight bytes at a
    /// time); otherwise byte by byte with those written as a space.
    @inline(__always)
    static func appendGuarded(_ text: String, into buffer: inout [UInt8]) {
        var text = text
        text.withUTF8 { utf8 in
            if isSplitFree(utf8) {
                buffer.append(contentsOf: utf8)
            } else {
                for byte in utf8 {
                    buffer.append(byte == ASCII.cr || byte == ASCII.lf || byte == 0 ? ASCII.sp : byte)
                }
            }
        }
    }

    /// True when `bytes` holds no CR, LF or NUL.
    @inline(__always)
    static func isSplitFree(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var i = 0
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while i &+ 8 <= count {
            let x = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            let cr = x ^ (ones &* UInt64(ASCII.cr))
            let lf = x ^ (ones &* UInt64(ASCII.lf))
            // A zero byte in x, cr or lf means NUL, CR or LF (the classic has-zero-byte test).
            let hit = ((x &- ones) & ~x) | ((cr &- ones) & ~cr) | ((lf &- ones) & ~lf)
            if hit & highs != 0 { return false }
            i &+= 8
        }
        while i < count {
            let b = base[i]
            if b == ASCII.cr || b == ASCII.lf || b == 0 { return false }
            i &+= 1
        }
        return true
    }
}
