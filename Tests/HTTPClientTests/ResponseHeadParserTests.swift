import Testing

@testable import HTTPClient

/// The response head parser against RFC 9112's grammar, whole and in every split.
@Suite struct ResponseHeadParserTests {
    /// Parses `text` whole.
    static func parse(_ text: String, maxBytes: Int = 4096) throws(HTTPClientError) -> ResponseHeadParser.Result {
        try Array(text.utf8).withBytes { (bytes) throws(HTTPClientError) in
            try ResponseHeadParser.parse(bytes, maxBytes: maxBytes)
        }
    }

    /// Valid heads: (source, text, status, minor version, header count, bytes consumed).
    static let valid: [(String, String, Int, Int, Int, Int)] = [
        ("RFC 9112 4: status line", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 200, 1, 1, 38),
        ("RFC 9112 4: empty reason", "HTTP/1.1 204 \r\n\r\n", 204, 1, 0, 17),
        ("RFC 9112 4: reason omitted", "HTTP/1.0 404\r\nA: b\r\n\r\nBODY", 404, 0, 1, 22),
        ("RFC 9112 2.2: bare LF", "HTTP/1.1 503 Slow Down\nRetry-After: 1\n\n", 503, 1, 1, 39),
        ("RFC 9110 5.5: OWS trimmed", "HTTP/1.1 200 OK\r\nETag:   \"abc\"  \r\nX:\r\n\r\n", 200, 1, 2, 40),
        (
            "RGW HEAD answer",
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nETag: \"x\"\r\nContent-Type: image/jpeg\r\n\r\n", 200, 1, 3, 75
        ),
    ]

    @Test(arguments: 0..<valid.count)
    func parsesValidHeads(_ index: Int) throws {
        let (source, text, status, minor, fieldCount, consumed) = Self.valid[index]
        guard case .complete(let head, let used) = try Self.parse(text) else {
            Issue.record("\(source): incomplete")
            return
        }
        #expect(head.status == status, "\(source)")
        #expect(head.minorVersion == minor, "\(source)")
        #expect(head.headers.count == fieldCount, "\(source)")
        #expect(used == consumed, "\(source)")
    }

    @Test func trimsValuesAndKeepsNames() throws {
        guard
            case .complete(let head, _) = try Self.parse(
                "HTTP/1.1 200 OK\r\nETag:   \"abc\"  \r\nx-amz-id-2: a b\r\n\r\n")
        else {
            Issue.record("incomplete")
            return
        }
        #expect(head.headers[0].name == "ETag")
        #expect(head.headers[0].value == "\"abc\"")
        #expect(head.values("x-amz-id-2") == ["a b"])
    }

    /// Every proper prefix of every valid head is incomplete, never an error.
    @Test(arguments: 0..<valid.count)
    func everyPrefixIsIncomplete(_ index: Int) throws {
        let (source, text, _, _, _, consumed) = Self.valid[index]
        let bytes = Array(text.utf8)
        for end in 0..<consumed {
            let result = try Array(bytes[..<end]).withBytes { (prefix) throws(HTTPClientError) in
                try ResponseHeadParser.parse(prefix, maxBytes: 4096)
            }
            guard case .incomplete = result else {
                Issue.record("\(source): prefix of \(end) bytes was complete")
                return
            }
        }
    }

    /// Malformed heads: (source, text).
    static let malformed: [(String, String)] = [
        ("RFC 9112 4: not HTTP", "HTTP/2 200 OK\r\n\r\n"),
        ("RFC 9112 4: two-digit status", "HTTP/1.1 20 OK\r\n\r\n"),
        ("RFC 9112 4: no space after status", "HTTP/1.1 200OK\r\n\r\n"),
        ("RFC 9112 4: status below 100", "HTTP/1.1 099 X\r\n\r\n"),
        ("RFC 9112 5.2: obsolete line folding", "HTTP/1.1 200 OK\r\nA: b\r\n c\r\n\r\n"),
        ("RFC 9112 5.1: space before colon", "HTTP/1.1 200 OK\r\nContent-Length : 5\r\n\r\n"),
        ("RFC 9110 5.1: empty field name", "HTTP/1.1 200 OK\r\n: x\r\n\r\n"),
        ("RFC 9110 5.5: NUL in a value", "HTTP/1.1 200 OK\r\nA: b\u{0}c\r\n\r\n"),
        ("RFC 9110 5.5: line without colon", "HTTP/1.1 200 OK\r\nJunk\r\n\r\n"),
    ]

    @Test(arguments: 0..<malformed.count)
    func rejectsMalformedHeads(_ index: Int) {
        let (source, text) = Self.malformed[index]
        let error = #expect(throws: HTTPClientError.self, "\(source)") { try Self.parse(text) }
        guard case .malformedResponse = error else {
            Issue.record("\(source): \(String(describing: error))")
            return
        }
    }

    @Test func rejectsAHeadOverTheLimit() throws {
        let long = "HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: 200)
        #expect(throws: HTTPClientError.malformedResponse("response head longer than 64 bytes")) {
            try Self.parse(long, maxBytes: 64)
        }
        #expect(throws: HTTPClientError.malformedResponse("response head longer than 64 bytes")) {
            try Self.parse(long + "\r\n\r\n", maxBytes: 64)
        }
    }
}
