import HTTP1
import Testing

/// `ResponseWriter.appendResponse` and `appendInterim`: every response head the server writes.
@Suite struct ResponseWriterResponseTests {
    static let date = Array("Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n".utf8)

    static func response(
        status: Int = 200, headers: [(name: String, value: String)] = [], requestId: String? = "r-1",
        close: Bool = false, body: String = "hello", omitBody: Bool = false
    ) -> String {
        var out: [UInt8] = []
        ResponseWriter.appendResponse(
            status: status, dateLine: date, headers: headers, requestId: requestId, close: close,
            body: Array(body.utf8), omitBody: omitBody, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    @Test("status line, Date, Content-Length, headers in order, request id, body")
    func whole() {
        #expect(
            Self.response(headers: [("Content-Type", "text/plain")])
                == "HTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nContent-Length: 5\r\n"
                + "Content-Type: text/plain\r\nX-Request-Id: r-1\r\n\r\nhello")
    }

    @Test("HEAD keeps Content-Length and drops the body; 204 and 304 carry neither")
    func bodiless() {
        #expect(Self.response(omitBody: true).hasSuffix("Content-Length: 5\r\nX-Request-Id: r-1\r\n\r\n"))
        for status in [204, 304] {
            let text = Self.response(status: status)
            #expect(!text.contains("Content-Length"))
            #expect(text.hasSuffix("\r\n\r\n"))
        }
    }

    @Test("the 503 at the connection cap: Date, an empty body, Connection: close, no request id")
    func connectionCap503() {
        #expect(
            Self.response(status: 503, requestId: nil, close: true, body: "")
                == "HTTP/1.1 503 Service Unavailable\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
                + "Content-Length: 0\r\nConnection: close\r\n\r\n")
    }

    @Test("100 Continue is a bare interim status line")
    func interim() {
        var out = Array("x".utf8)
        ResponseWriter.appendInterim(status: 100, into: &out)
        #expect(String(decoding: out, as: UTF8.self) == "xHTTP/1.1 100 Continue\r\n\r\n")
    }

    @Test("Content-Length in decimal", arguments: [0, 7, 10, 99, 100, 12_345, 1_048_576])
    func contentLength(length: Int) {
        var out: [UInt8] = []
        ResponseWriter.appendResponse(
            status: 200, dateLine: [], headers: [], requestId: nil, close: false,
            body: [UInt8](repeating: 0x61, count: length), omitBody: true, into: &out)
        #expect(String(decoding: out, as: UTF8.self) == "HTTP/1.1 200 OK\r\nContent-Length: \(length)\r\n\r\n")
    }

    /// Splitting bytes at every position of short and long (past the 8-byte scan) names and values.
    static var splitters: [(String, Int)] {
        var cases: [(String, Int)] = []
        for byte in ["\r", "\n", "\u{0}"] {
            for position in [0, 3, 7, 8, 15, 23] { cases.append((byte, position)) }
        }
        return cases
    }

    @Test(
        "CR, LF and NUL in a header name, a header value or the request id are written as a space", arguments: splitters
    )
    func noSplitting(byte: String, position: Int) {
        let clean = String(repeating: "a", count: 24)
        var dirty = Array(clean)
        dirty.insert(Character(byte), at: position)
        let bad = String(dirty)
        let expected = String(clean.prefix(position)) + " " + String(clean.dropFirst(position))
        for (headers, requestId) in [
            ([(name: bad, value: "v")], "r"), ([(name: "N", value: bad)], "r"),
            ([(name: "Content-Type", value: bad)], "r"), ([], bad),
        ] {
            let text = Self.response(headers: headers, requestId: requestId, body: "")
            #expect(text.contains(expected))
            #expect(!text.contains("\u{0}"))
            // Only the writer's own line breaks: status, Date, Content-Length, the header, id, blank, (empty body).
            let lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
            #expect(lines.count == (headers.isEmpty ? 6 : 7), "\(text.debugDescription)")
            #expect(!text.replacingCRLF().contains("\r") && !text.replacingCRLF().contains("\n"))
        }
    }

    @Test("the split-free scan agrees with a byte-by-byte check on every length and offset")
    func scanAgrees() {
        for length in 0..<20 {
            for position in 0..<max(1, length) {
                for byte: UInt8 in [0x0D, 0x0A, 0x00, 0x0B, 0x8D] {
                    var bytes = [UInt8](repeating: 0x61, count: length)
                    if length > 0 { bytes[position] = byte }
                    var out: [UInt8] = []
                    ResponseWriter.appendHead(
                        status: 200, headers: [("N", String(decoding: bytes, as: UTF8.self))], into: &out)
                    #expect(out.filter { $0 == 0x0D }.count == 3, "status line, field line, blank line")
                    #expect(out.filter { $0 == 0x0A }.count == 3)
                    #expect(!out.contains(0x00))
                }
            }
        }
    }
}

extension String {
    /// The text without its CRLF pairs (what is left must hold no bare CR or LF).
    fileprivate func replacingCRLF() -> String {
        split(separator: "\r\n", omittingEmptySubsequences: false).joined(separator: "|")
    }
}
