import Testing

@testable import HTTPClient

/// The chunked decoder against RFC 9112 section 7.1, whole and in every two-way split.
@Suite struct ChunkedBodyDecoderTests {
    /// Valid bodies: (source, encoded, decoded, bytes after the body that must stay unconsumed).
    static let valid: [(String, String, String, Int)] = [
        ("RFC 9112 7.1: one chunk", "5\r\nhello\r\n0\r\n\r\n", "hello", 0),
        ("RFC 9112 7.1: two chunks, hex size", "3\r\nabc\r\nA\r\n0123456789\r\n0\r\n\r\n", "abc0123456789", 0),
        ("RFC 9112 7.1.1: extensions ignored", "4;name=value\r\nwiki\r\n0;last\r\n\r\n", "wiki", 0),
        ("RFC 9112 7.1.2: trailer fields skipped", "2\r\nok\r\n0\r\nExpires: never\r\nX: y\r\n\r\n", "ok", 0),
        ("RFC 9112 2.2: bare LF line ends", "2\nok\n0\n\n", "ok", 0),
        ("RFC 9112 7.1: empty body", "0\r\n\r\n", "", 0),
        ("next response left alone", "1\r\na\r\n0\r\n\r\nHTTP/1.1 200 OK\r\n", "a", 17),
        (
            "upper-case hex", "1F\r\n" + String(repeating: "z", count: 31) + "\r\n0\r\n\r\n",
            String(repeating: "z", count: 31), 0
        ),
    ]

    /// Decodes `parts` in order; returns the output, whether complete, and the unconsumed count.
    static func decode(_ parts: [ArraySlice<UInt8>]) throws(HTTPClientError) -> (String, Bool, Int) {
        var decoder = ChunkedBodyDecoder()
        var output = [UInt8]()
        var left = 0
        for part in parts {
            let consumed = try Array(part).withBytes { (bytes) throws(HTTPClientError) in
                try decoder.decode(bytes, into: &output)
            }
            left += part.count - consumed
        }
        return (String(decoding: output, as: UTF8.self), decoder.isComplete, left)
    }

    @Test(arguments: 0..<valid.count)
    func decodesWholeAndInEverySplit(_ index: Int) throws {
        let (source, encoded, decoded, trailing) = Self.valid[index]
        let bytes = Array(encoded.utf8)
        let whole = try Self.decode([bytes[...]])
        #expect(whole.0 == decoded, "\(source)")
        #expect(whole.1, "\(source)")
        #expect(whole.2 == trailing, "\(source)")
        for split in 0...bytes.count {
            let result = try Self.decode([bytes[..<split], bytes[split...]])
            #expect(result.0 == decoded && result.1 && result.2 == trailing, "\(source), split at \(split)")
        }
    }

    @Test func byteAtATime() throws {
        let bytes = Array("3\r\nabc\r\n2;x\r\nde\r\n0\r\nT: 1\r\n\r\n".utf8)
        let result = try Self.decode(bytes.indices.map { bytes[$0...$0] })
        #expect(result.0 == "abcde")
        #expect(result.1)
    }

    @Test func incompleteUntilTheLastChunk() throws {
        let result = try Self.decode([Array("5\r\nhello\r\n".utf8)[...]])
        #expect(result.0 == "hello")
        #expect(!result.1)
    }

    /// Malformed bodies: (source, encoded).
    static let malformed: [(String, String)] = [
        ("RFC 9112 7.1: size missing", "\r\nabc\r\n0\r\n\r\n"),
        ("RFC 9112 7.1: non-hex size", "g\r\n"),
        ("RFC 9112 7.1: data longer than size", "2\r\nabc\r\n0\r\n\r\n"),
        ("RFC 9112 7.1: CR without LF", "2\r\nab\rX"),
        ("overflowing size", "1000000000000000\r\n"),
    ]

    @Test(arguments: 0..<malformed.count)
    func rejectsMalformedBodies(_ index: Int) {
        let (source, encoded) = Self.malformed[index]
        #expect(throws: HTTPClientError.self, "\(source)") { try Self.decode([Array(encoded.utf8)[...]]) }
    }
}
