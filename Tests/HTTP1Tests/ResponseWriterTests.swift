import HTTP1
import Testing

@Suite struct ResponseWriterTests {
    @Test("Status line, headers in order, final CRLF")
    func head() {
        var buffer: [UInt8] = []
        ResponseWriter.appendHead(
            status: 200, headers: [("Content-Length", "2"), ("Date", "Sun, 06 Nov 1994 08:49:37 GMT")], into: &buffer)
        #expect(
            String(decoding: buffer, as: UTF8.self)
                == "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n")
    }

    @Test("Appends after existing bytes; no headers")
    func appends() {
        var buffer = Array("x".utf8)
        ResponseWriter.appendHead(status: 204, headers: [(String, String)](), into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == "xHTTP/1.1 204 No Content\r\n\r\n")
    }

    /// (status, reason phrase), RFC 9110 §15 and RFC 6585 §5 (431).
    static let phrases: [(Int, String)] = [
        (100, "Continue"), (200, "OK"), (201, "Created"), (204, "No Content"), (304, "Not Modified"),
        (400, "Bad Request"), (404, "Not Found"), (405, "Method Not Allowed"), (408, "Request Timeout"),
        (413, "Content Too Large"), (414, "URI Too Long"), (417, "Expectation Failed"),
        (431, "Request Header Fields Too Large"), (500, "Internal Server Error"), (501, "Not Implemented"),
        (503, "Service Unavailable"), (505, "HTTP Version Not Supported"), (599, "Unknown"),
    ]

    @Test("Reason phrases", arguments: phrases)
    func reasonPhrase(status: Int, phrase: String) {
        #expect(ResponseWriter.reasonPhrase(status) == phrase)
        var buffer: [UInt8] = []
        ResponseWriter.appendHead(status: status, headers: [(String, String)](), into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == "HTTP/1.1 \(status) \(phrase)\r\n\r\n")
    }

    @Test("Every ParseError status has a registered reason phrase")
    func parseErrorPhrases() {
        let errors: [ParseError] = [
            .badRequest("x"), .headerTooLarge, .uriTooLong, .versionNotSupported, .notImplemented("x"),
            .payloadTooLarge,
        ]
        for error in errors {
            #expect(ResponseWriter.reasonPhrase(error.status) != "Unknown")
        }
    }

    @Test("CR, LF and NUL in names and values cannot split the response")
    func noSplitting() {
        var buffer: [UInt8] = []
        ResponseWriter.appendHead(
            status: 302, headers: [("Location", "/a\r\nSet-Cookie: x=1"), ("X\n", "a\u{0}b")], into: &buffer)
        let text = String(decoding: buffer, as: UTF8.self)
        #expect(text == "HTTP/1.1 302 Found\r\nLocation: /a  Set-Cookie: x=1\r\nX : a b\r\n\r\n")
        #expect(text.split(separator: "\r\n", omittingEmptySubsequences: false).count == 5)
    }

    @Test("A written head parses back as a request-like head (round trip of field lines)")
    func roundTrip() {
        let fields = [
            ("Host", "a"), ("Content-Type", "application/json"), ("X-Long", String(repeating: "v", count: 300)),
        ]
        var buffer: [UInt8] = []
        ResponseWriter.appendHead(status: 200, headers: fields, into: &buffer)
        let lines = Array("GET / HTTP/1.1\r\n".utf8) + buffer.drop { $0 != 0x0A }.dropFirst()
        guard case .complete(let head, _) = RequestParser.parseHead(lines) else {
            Issue.record("did not parse")
            return
        }
        #expect(head.headers == HTTPHeaders(fields))
    }
}
