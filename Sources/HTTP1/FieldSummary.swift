/// What the framing-relevant fields of a head said, gathered line by line (RFC 9112 §6, §9.3, RFC 9110 §7.2).
struct FieldSummary {
    /// Whether a Host line was seen.
    var hasHost = false
    /// Where the Host value starts, when one Host line was seen.
    var hostStart = 0
    /// Where the Host value ends.
    var hostEnd = 0
    /// The validated Content-Length.
    var contentLength: Int? = nil
    /// How many Transfer-Encoding lines were seen.
    var transferEncodingCount = 0
    /// Whether the (single) Transfer-Encoding value is exactly `chunked`.
    var transferEncodingIsChunked = false
    /// Whether a Connection line listed `close`.
    var connectionClose = false
    /// Whether a Connection line listed `keep-alive`.
    var connectionKeepAlive = false
    /// Whether an Expect line said `100-continue`.
    var expectContinue = false

    /// The message framing decided once the head is complete.
    struct Framing {
        /// Whether the body is chunked.
        var isChunked: Bool
        /// Whether the connection persists after the response.
        var keepAlive: Bool
        /// Whether the client waits for `100 Continue`.
        var expectsContinue: Bool
    }

    /// Records one field line (name at `nameStart..<nameEnd`, trimmed value at `valueStart..<valueEnd`);
    /// rejects a second Host, an invalid Host, a bad or second Content-Length.
    @inline(__always)
    mutating func note(
        _ bytes: UnsafeRawBufferPointer, nameStart: Int, nameEnd: Int, valueStart: Int, valueEnd: Int
    ) throws(ScanStop) {
        let length = nameEnd &- nameStart
        let valueLength = valueEnd &- valueStart
        // Filter on length and first letter before comparing whole names.
        switch (length, bytes[nameStart] | 0x20) {
        case (4, UInt8(ascii: "h")) where ASCII.equalsIgnoringCase(bytes, nameStart, length, "host"):
            guard !hasHost else { throw .bad("more than one Host header") }
            guard valueLength > 0 else { throw .bad("empty Host header") }
            var k = valueStart
            while k < valueEnd {
                guard ASCII.isHostChar(bytes[k]) else { throw .bad("invalid Host header") }
                k &+= 1
            }
            hasHost = true
            hostStart = valueStart
            hostEnd = valueEnd
        case (14, UInt8(ascii: "c")) where ASCII.equalsIgnoringCase(bytes, nameStart, length, "content-length"):
            guard contentLength == nil else { throw .bad("more than one Content-Length") }
            contentLength = try Self.parseContentLength(bytes, valueStart, valueEnd)
        case (17, UInt8(ascii: "t")) where ASCII.equalsIgnoringCase(bytes, nameStart, length, "transfer-encoding"):
            transferEncodingCount &+= 1
            transferEncodingIsChunked = ASCII.equalsIgnoringCase(bytes, valueStart, valueLength, "chunked")
        case (10, UInt8(ascii: "c")) where ASCII.equalsIgnoringCase(bytes, nameStart, length, "connection"):
            noteConnection(bytes, valueStart, valueEnd)
        case (6, UInt8(ascii: "e")) where ASCII.equalsIgnoringCase(bytes, nameStart, length, "expect"):
            if ASCII.equalsIgnoringCase(bytes, valueStart, valueLength, "100-continue") {
                expectContinue = true
            }
        default:
            break
        }
    }

    /// Decides body framing and persistence once all lines are read (RFC 9112 §6.1-§6.3, §9.3).
    func framing(versionMinor: Int) throws(ScanStop) -> Framing {
        if versionMinor == 1 && !hasHost { throw .bad("missing Host header") }
        if transferEncodingCount > 0 {
            if contentLength != nil { throw .bad("both Transfer-Encoding and Content-Length") }
            if versionMinor == 0 { throw .bad("Transfer-Encoding in an HTTP/1.0 request") }
            if transferEncodingCount > 1 { throw .bad("more than one Transfer-Encoding header") }
            if !transferEncodingIsChunked { throw .failure(.notImplemented("unsupported transfer coding")) }
        }
        let keepAlive = versionMinor == 1 ? !connectionClose : connectionKeepAlive && !connectionClose
        return Framing(
            isChunked: transferEncodingCount > 0, keepAlive: keepAlive,
            expectsContinue: expectContinue && versionMinor == 1)
    }

    /// Content-Length = 1*DIGIT (RFC 9110 §8.6): no sign, no list, no inner space, no overflow.
    static func parseContentLength(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ end: Int) throws(ScanStop) -> Int {
        guard end > start else { throw .bad("empty Content-Length") }
        var result = 0
        var k = start
        while k < end {
            let digit = bytes[k] &- 0x30
            guard digit < 10 else { throw .bad("invalid Content-Length") }
            let (times10, overflow1) = result.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int(digit))
            guard !overflow1 && !overflow2 else { throw .bad("Content-Length overflow") }
            result = sum
            k &+= 1
        }
        return result
    }

    /// Notes the `close` and `keep-alive` options of a Connection list (RFC 9110 §7.6.1).
    private mutating func noteConnection(_ bytes: UnsafeRawBufferPointer, _ valueStart: Int, _ valueEnd: Int) {
        var k = valueStart
        while k < valueEnd {
            while k < valueEnd && (ASCII.isWhitespace(bytes[k]) || bytes[k] == ASCII.comma) { k &+= 1 }
            let start = k
            var end = k
            while k < valueEnd && bytes[k] != ASCII.comma {
                if !ASCII.isWhitespace(bytes[k]) { end = k &+ 1 }
                k &+= 1
            }
            let length = end &- start
            if length == 5 && ASCII.equalsIgnoringCase(bytes, start, length, "close") {
                connectionClose = true
            } else if length == 10 && ASCII.equalsIgnoringCase(bytes, start, length, "keep-alive") {
                connectionKeepAlive = true
            }
        }
    }
}
