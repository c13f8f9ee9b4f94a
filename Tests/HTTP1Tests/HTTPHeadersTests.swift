import HTTP1
import Testing

@Suite struct HTTPHeadersTests {
    static let headers = HTTPHeaders([("Host", "a"), ("X-A", "1"), ("x-a", "2"), ("Accept", ""), ("\u{C9}", "e")])

    @Test("first/all/contains ignore ASCII case only")
    func lookups() {
        let h = Self.headers
        #expect(h.count == 5 && !h.isEmpty)
        #expect(h.first("x-A") == "1")
        #expect(h.all("X-a") == ["1", "2"])
        #expect(h.first("accept") == "")
        #expect(h.contains("HOST") && !h.contains("Hos") && !h.contains("Hostt"))
        #expect(h.first("\u{E9}") == nil)
        #expect(h.first("\u{C9}") == "e")
        #expect(h.all("none").isEmpty)
        #expect(HTTPHeaders().isEmpty && HTTPHeaders().first("a") == nil)
    }

    @Test("Iteration keeps received order; equality is by pairs")
    func orderAndEquality() {
        let h = Self.headers
        #expect(h.map(\.name) == ["Host", "X-A", "x-a", "Accept", "\u{C9}"])
        #expect(h.map(\.value) == ["a", "1", "2", "", "e"])
        #expect(h == HTTPHeaders([("Host", "a"), ("X-A", "1"), ("x-a", "2"), ("Accept", ""), ("\u{C9}", "e")]))
        #expect(h != HTTPHeaders([("Host", "a"), ("X-A", "1"), ("x-a", "2"), ("Accept", ""), ("\u{C9}", "f")]))
        #expect(h != HTTPHeaders([("Host", "a")]))
        #expect(HTTPHeaders([("ab", "c")]) != HTTPHeaders([("a", "bc")]))
    }

    @Test("Parsed headers equal headers built from the same pairs, whatever the surrounding bytes")
    func parsedEqualsBuilt() {
        guard
            case .complete(let head, _) = RequestParser.parseHead(
                bytes("GET / HTTP/1.1\r\nHost:  a \r\nX-A:1\r\nx-a:\t2\t\r\n\r\n"))
        else {
            Issue.record("did not parse")
            return
        }
        #expect(head.headers == HTTPHeaders([("Host", "a"), ("X-A", "1"), ("x-a", "2")]))
        #expect(head.headers.description == "Host: a\nX-A: 1\nx-a: 2")
    }
}
