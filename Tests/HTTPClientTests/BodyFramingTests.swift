import Testing

@testable import HTTPClient

/// Body framing by RFC 9112 section 6.3's rules.
@Suite struct BodyFramingTests {
    /// A head with `status` and `fields`.
    static func head(_ status: Int, _ fields: [(String, String)], minor: Int = 1) -> ResponseHead {
        ResponseHead(minorVersion: minor, status: status, headers: fields.map { (name: $0.0, value: $0.1) })
    }

    /// (source, status, fields, response to HEAD, expected framing or nil for an error).
    static let cases: [(String, Int, [(String, String)], Bool, BodyFraming?)] = [
        ("6.3 rule 1: HEAD", 200, [("Content-Length", "10")], true, BodyFraming.none),
        ("6.3 rule 1: 204", 204, [("Content-Length", "10")], false, BodyFraming.none),
        ("6.3 rule 1: 304", 304, [], false, BodyFraming.none),
        ("6.3 rule 4: chunked", 200, [("Transfer-Encoding", "chunked")], false, .chunked),
        (
            "6.3 rule 3: chunked wins over length", 200, [("Transfer-Encoding", "Chunked"), ("Content-Length", "3")],
            false, .chunked
        ),
        ("6.3 rule 6: length", 200, [("Content-Length", "42")], false, .length(42)),
        ("6.3 rule 5: equal duplicates", 200, [("Content-Length", "7, 7")], false, .length(7)),
        ("6.3 rule 5: different lengths", 200, [("Content-Length", "7"), ("content-length", "8")], false, nil),
        ("6.3 rule 5: not a number", 200, [("Content-Length", "-1")], false, nil),
        ("6.3 rule 4: other coding", 200, [("Transfer-Encoding", "gzip, chunked")], false, nil),
        ("6.3 rule 8: close-delimited", 200, [], false, .untilClose),
    ]

    @Test(arguments: 0..<cases.count)
    func framing(_ index: Int) {
        let (source, status, fields, toHead, expected) = Self.cases[index]
        let result = try? BodyFraming.of(Self.head(status, fields), toHead: toHead)
        #expect(result == expected, "\(source)")
    }

    /// (source, minor version, Connection values, keeps alive).
    static let persistence: [(String, Int, [String], Bool)] = [
        ("RFC 9112 9.3: 1.1 default", 1, [], true),
        ("RFC 9112 9.3: close", 1, ["close"], false),
        ("RFC 9112 9.3: close among options", 1, ["keep-alive, Close"], false),
        ("RFC 9112 9.3: 1.0 default", 0, [], false),
        ("RFC 9112 9.3: 1.0 keep-alive", 0, ["Keep-Alive"], true),
    ]

    @Test(arguments: 0..<persistence.count)
    func keepAlive(_ index: Int) {
        let (source, minor, values, expected) = Self.persistence[index]
        let head = Self.head(200, values.map { ("Connection", $0) }, minor: minor)
        #expect(head.keepsAlive == expected, "\(source)")
    }
}
