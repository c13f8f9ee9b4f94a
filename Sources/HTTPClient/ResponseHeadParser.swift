/// Parses a response head (RFC 9112 sections 4 and 5) from the start of a buffer. Pure.
///
/// Strict where laxness could desynchronise a reused connection: obsolete line folding, a space
/// before the colon and a malformed status line are errors. Lines may end in CRLF or a bare LF
/// (section 2.2 allows a recipient to accept both).
enum ResponseHeadParser {
    /// The outcome of one parse.
    enum Result {
        /// The head is not complete yet: read more.
        case incomplete
        /// The head, and how many bytes it took (the body starts there).
        case complete(ResponseHead, consumed: Int)
    }

    /// The most header fields accepted.
    static let maxFields = 256

    /// Parses the head at the start of `bytes`; `maxBytes` bounds how long it may be.
    static func parse(_ bytes: UnsafeRawBufferPointer, maxBytes: Int) throws(HTTPClientError) -> Result {
        guard let end = headEnd(bytes) else {
            if bytes.count > maxBytes { throw .malformedResponse("response head longer than \(maxBytes) bytes") }
            return .incomplete
        }
        guard end.consumed <= maxBytes else { throw .malformedResponse("response head longer than \(maxBytes) bytes") }
        var lines = [UnsafeRawBufferPointer]()
        var start = 0
        var index = 0
        while index < end.linesEnd {
            if bytes[index] == UInt8(ascii: "\n") {
                var lineEnd = index
                if lineEnd > start && bytes[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
                lines.append(UnsafeRawBufferPointer(rebasing: bytes[start..<lineEnd]))
                start = index + 1
            }
            index += 1
        }
        guard let statusLine = lines.first else { throw .malformedResponse("empty status line") }
        let (minor, status) = try parseStatusLine(statusLine)
        guard lines.count - 1 <= maxFields else { throw .malformedResponse("more than \(maxFields) header fields") }
        var headers = [(name: String, value: String)]()
        headers.reserveCapacity(lines.count - 1)
        for line in lines.dropFirst() {
            headers.append(try parseField(line))
        }
        return .complete(ResponseHead(minorVersion: minor, status: status, headers: headers), consumed: end.consumed)
    }

    /// Where the head ends: the end of the last field line (before its terminator), and the
    /// offset after the empty line; nil while no empty line has arrived.
    private static func headEnd(_ bytes: UnsafeRawBufferPointer) -> (linesEnd: Int, consumed: Int)? {
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\n") {
                // An empty line follows this LF: "\n\n" or "\n\r\n".
                if index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "\n") {
                    return (index + 1, index + 2)
                }
                if index + 2 < bytes.count && bytes[index + 1] == UInt8(ascii: "\r")
                    && bytes[index + 2] == UInt8(ascii: "\n")
                {
                    return (index + 1, index + 3)
                }
            }
            index += 1
        }
        return nil
    }

    /// `HTTP/1.x SP 3DIGIT [SP reason]`: the minor version and the status.
    private static func parseStatusLine(_ line: UnsafeRawBufferPointer) throws(HTTPClientError) -> (Int, Int) {
        let prefix = Array("HTTP/1.".utf8)
        guard line.count >= 12, line.prefix(7).elementsEqual(prefix), isDigit(line[7]), line[8] == UInt8(ascii: " "),
            isDigit(line[9]), isDigit(line[10]), isDigit(line[11]), line.count == 12 || line[12] == UInt8(ascii: " ")
        else { throw .malformedResponse("malformed status line") }
        for byte in line.dropFirst(12) where byte < 0x20 && byte != UInt8(ascii: "\t") || byte == 0x7f {
            throw .malformedResponse("control character in the reason phrase")
        }
        let status = Int(line[9] - 0x30) * 100 + Int(line[10] - 0x30) * 10 + Int(line[11] - 0x30)
        guard status >= 100 else { throw .malformedResponse("status code \(status) below 100") }
        return (Int(line[7] - 0x30), status)
    }

    /// `name ":" OWS value OWS`.
    private static func parseField(_ line: UnsafeRawBufferPointer) throws(HTTPClientError) -> (
        name: String, value: String
    ) {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0 else {
            if let first = line.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
                throw .malformedResponse("obsolete line folding in a header field")
            }
            throw .malformedResponse("header field without a name")
        }
        for byte in line[..<colon] where !isTokenCharacter(byte) {
            throw .malformedResponse("invalid character in a header field name")
        }
        var valueStart = colon + 1
        var valueEnd = line.count
        while valueStart < valueEnd, line[valueStart] == UInt8(ascii: " ") || line[valueStart] == UInt8(ascii: "\t") {
            valueStart += 1
        }
        while valueEnd > valueStart, line[valueEnd - 1] == UInt8(ascii: " ") || line[valueEnd - 1] == UInt8(ascii: "\t")
        {
            valueEnd -= 1
        }
        for byte in line[valueStart..<valueEnd] where (byte < 0x20 && byte != UInt8(ascii: "\t")) || byte == 0x7f {
            throw .malformedResponse("control character in a header field value")
        }
        let name = String(decoding: UnsafeRawBufferPointer(rebasing: line[..<colon]), as: UTF8.self)
        let value = String(decoding: UnsafeRawBufferPointer(rebasing: line[valueStart..<valueEnd]), as: UTF8.self)
        return (name, value)
    }

    /// ASCII digit.
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// RFC 9110 `tchar`.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
