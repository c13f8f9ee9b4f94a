/// What the framing-relevant fields of a head said, gathered line by line (RFC 9112 §6, §9.3, RFC 9110 §7.2).
struct FieldSummary {
    /// The Host value's offsets, when one Host line was seen.
    var host: Range<Int>? = nil
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
        var isChunked: Bool
        var keepAlive: Bool
        var expectsContinue: Bool
    }

    /// Records one field line; rejects a second Host, a bad or second Content-Length, an invalid Host.
    mutating func note(_ bytes: UnsafeRawBufferPointer, name: Range<Int>, value: Range<Int>) throws(ScanStop) {
        let length = name.count
        let start = name.lowerBound
        switch length {
        case 4 where ASCII.equalsIgnoringCase(bytes, start, length, "host"):
            guard host == nil else { throw .bad("more than one Host header") }
            guard !value.isEmpty else { throw .bad("empty Host header") }
            for k in value where !ASCII.isHostChar(bytes[k]) {
                throw .bad("invalid Host header")
            }
            host = value
        case 14 where ASCII.equalsIgnoringCase(bytes, start, length, "content-length"):
            guard contentLength == nil else { throw .bad("more than one Content-Length") }
            contentLength = try Self.parseContentLength(bytes, value)
        case 17 where ASCII.equalsIgnoringCase(bytes, start, length, "transfer-encoding"):
            transferEncodingCount &+= 1
            transferEncodingIsChunked = ASCII.equalsIgnoringCase(bytes, value.lowerBound, value.count, "chunked")
        case 10 where ASCII.equalsIgnoringCase(bytes, start, length, "connection"):
            noteConnection(bytes, value)
        case 6 where ASCII.equalsIgnoringCase(bytes, start, length, "expect"):
            if ASCII.equalsIgnoringCase(bytes, value.lowerBound, value.count, "100-continue") {
                expectContinue = true
            }
        default:
            break
        }
    }

    /// Decides body framing and persistence once all lines are read (RFC 9112 §6.1-§6.3, §9.3).
    func framing(versionMinor: Int) throws(ScanStop) -> Framing {
        if versionMinor == 1 && host == nil { throw .bad("missing Host header") }
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
    static func parseContentLength(_ bytes: UnsafeRawBufferPointer, _ value: Range<Int>) throws(ScanStop) -> Int {
        guard !value.isEmpty else { throw .bad("empty Content-Length") }
        var result = 0
        for k in value {
            let digit = bytes[k] &- 0x30
            guard digit < 10 else { throw .bad("invalid Content-Length") }
            let (times10, overflow1) = result.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int(digit))
            guard !overflow1 && !overflow2 else { throw .bad("Content-Length overflow") }
            result = sum
        }
        return result
    }

    /// Notes the `close` and `keep-alive` options of a Connection list (RFC 9110 §7.6.1).
    private mutating func noteConnection(_ bytes: UnsafeRawBufferPointer, _ value: Range<Int>) {
        var k = value.lowerBound
        while k < value.upperBound {
            while k < value.upperBound && (ASCII.isWhitespace(bytes[k]) || bytes[k] == ASCII.comma) { k &+= 1 }
            let start = k
            var end = k
            while k < value.upperBound && bytes[k] != ASCII.comma {
                if !ASCII.isWhitespace(bytes[k]) { end = k &+ 1 }
                k &+= 1
            }
            let length = end &- start
            if ASCII.equalsIgnoringCase(bytes, start, length, "close") {
                connectionClose = true
            } else if ASCII.equalsIgnoringCase(bytes, start, length, "keep-alive") {
                connectionKeepAlive = true
            }
        }
    }
}
