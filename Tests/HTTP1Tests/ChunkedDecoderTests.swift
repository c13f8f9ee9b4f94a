import HTTP1
import Testing

/// One row of the chunked-decoder table: a body as sent, the rule, and the expected outcome.
struct ChunkedVector: Sendable, CustomTestStringConvertible {
    /// The rule exercised.
    let rule: String
    /// Where the rule comes from.
    let source: String
    /// The chunked body as sent.
    let input: [UInt8]
    /// The expected outcome.
    let expected: DecodeOutcome
    /// The decoder's body limit.
    var maxBodyBytes = 1 << 20
    /// The limits in force.
    var limits = ParserLimits()

    init(
        _ rule: String, _ source: String, _ input: String, _ expected: DecodeOutcome, maxBodyBytes: Int = 1 << 20,
        limits: ParserLimits = ParserLimits()
    ) {
        self.rule = rule
        self.source = source
        self.input = Array(input.utf8)
        self.expected = expected
        self.maxBodyBytes = maxBodyBytes
        self.limits = limits
    }

    var testDescription: String { "\(rule) [\(source)]" }
}

extension DecodeOutcome: @unchecked Sendable {}

/// `.complete` for a body whose encoding spans all of `input`.
private func done(_ input: String, _ body: String) -> DecodeOutcome {
    .complete(consumed: input.utf8.count, body: Array(body.utf8))
}

/// A 400 with its context.
private func bad(_ context: String) -> DecodeOutcome { .failure(.badRequest(context)) }

@Suite struct ChunkedDecoderTests {
    static let small = ParserLimits(maxTrailerBytes: 16, maxChunkExtensionBytes: 8)
    static let vectors: [ChunkedVector] = [
        .init(
            "two chunks", "RFC 9112 §7.1", "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n",
            done("5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", "hello world")),
        .init("empty body", "RFC 9112 §7.1", "0\r\n\r\n", done("0\r\n\r\n", "")),
        .init(
            "upper and lower hex", "RFC 9112 §7.1 (HEXDIG)", "A\r\n0123456789\r\na\r\nabcdefghij\r\n0\r\n\r\n",
            done("A\r\n0123456789\r\na\r\nabcdefghij\r\n0\r\n\r\n", "0123456789abcdefghij")),
        .init(
            "leading zeros, 000 last chunk", "llhttp transfer-encoding.md", "05\r\nhello\r\n000\r\n\r\n",
            done("05\r\nhello\r\n000\r\n\r\n", "hello")),
        .init(
            "CRLF inside chunk data is data", "RFC 9112 §7.1", "4\r\n\r\n\r\n\r\n0\r\n\r\n",
            done("4\r\n\r\n\r\n\r\n0\r\n\r\n", "\r\n\r\n")),
        .init(
            "bytes after the body are left unread", "RFC 9112 §7.1", "1\r\nx\r\n0\r\n\r\nGET / HTTP/1.1",
            .complete(consumed: 11, body: Array("x".utf8))),
        .init("unfinished body", "RFC 9112 §7.1", "5\r\nhel", .incomplete(body: Array("hel".utf8))),
        .init("unfinished after last chunk", "RFC 9112 §7.1.2", "0\r\n", .incomplete(body: [])),
        .init(
            "extension ignored", "RFC 9112 §7.1.1", "3;foo=bar\r\nabc\r\n0\r\n\r\n",
            done("3;foo=bar\r\nabc\r\n0\r\n\r\n", "abc")),
        .init(
            "extensions: names, tokens, quoted, BWS", "RFC 9112 §7.1.1",
            "3;a; b = c ;d=\"x\\\"y; z\"\r\nabc\r\n0;last\r\n\r\n",
            done("3;a; b = c ;d=\"x\\\"y; z\"\r\nabc\r\n0;last\r\n\r\n", "abc")),
        .init(
            "extension without name", "llhttp transfer-encoding.md", "2;\r\nab\r\n0\r\n\r\n",
            bad("invalid chunk extension")),
        .init(
            "extension with = but no value", "RFC 9112 §7.1.1", "2;a=\r\nab\r\n0\r\n\r\n",
            bad("invalid chunk extension value")),
        .init(
            "quoted extension with CR", "llhttp transfer-encoding.md", "2;a=\"b\rc\"\r\nab\r\n0\r\n\r\n",
            bad("invalid character in quoted chunk extension")),
        .init(
            "unterminated quoted extension", "llhttp transfer-encoding.md", "2;a=\"bc\r\nab\r\n0\r\n\r\n",
            bad("invalid character in quoted chunk extension")),
        .init(
            "NUL in extension", "reliability.md (CTL-free)", "2;a\u{0}\r\nab\r\n0\r\n\r\n",
            bad("invalid chunk extension")),
        .init(
            "DEL in extension value", "reliability.md (CTL-free)", "2;a=b\u{7F}\r\nab\r\n0\r\n\r\n",
            bad("invalid chunk extension")),
        .init(
            "extension at its limit", "bounded extensions", "2;abcdefg\r\nab\r\n0\r\n\r\n",
            done("2;abcdefg\r\nab\r\n0\r\n\r\n", "ab"), limits: small),
        .init(
            "extension over its limit", "bounded extensions", "2;abcdefgh\r\nab\r\n0\r\n\r\n",
            bad("chunk extension too long"), limits: small),
        .init(
            "16 hex digits", "strict profile", "0000000000000001\r\nx\r\n0\r\n\r\n",
            done("0000000000000001\r\nx\r\n0\r\n\r\n", "x")),
        .init(
            "17 hex digits", "strict profile", "00000000000000001\r\nx\r\n0\r\n\r\n",
            bad("chunk size has more than 16 hex digits")),
        .init(
            "size overflow", "strict profile", "FFFFFFFFFFFFFFFF\r\n", bad("chunk size overflow"), maxBodyBytes: Int.max
        ),
        .init("largest size, then body limit", "strict profile", "7FFFFFFFFFFFFFFF\r\n", .failure(.payloadTooLarge)),
        .init("size not hex", "RFC 9112 §7.1; llhttp", "g\r\n", bad("invalid chunk size")),
        .init("empty size line", "llhttp transfer-encoding.md", "3\r\nfoo\r\n\r\n", bad("invalid chunk size")),
        .init("negative size", "RFC 9112 §7.1", "-1\r\n", bad("invalid chunk size")),
        .init("0x prefix", "RFC 9112 §7.1", "0x5\r\n", bad("invalid character after chunk size")),
        .init(
            "space after size", "llhttp transfer-encoding.md", "a \r\n0123456789\r\n0\r\n\r\n",
            bad("invalid character after chunk size")),
        .init(
            "bare LF after size", "reliability.md (CRLF)", "3\nabc\r\n0\r\n\r\n",
            bad("invalid character after chunk size")),
        .init("bare CR after size", "llhttp transfer-encoding.md", "5\r\r;ABCD\r\n", bad("bare CR in chunk size line")),
        .init(
            "data longer than size", "llhttp transfer-encoding.md", "5\r\nABCDE0\r\n",
            bad("missing CRLF after chunk data")),
        .init(
            "bare LF after data", "reliability.md (CRLF)", "3\r\nabc\n0\r\n\r\n", bad("missing CRLF after chunk data")),
        .init("bare CR after data", "reliability.md (CRLF)", "3\r\nabc\rX", bad("missing CRLF after chunk data")),
        .init(
            "body at maxBodyBytes", "413 rule", "3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n",
            done("3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n", "abcde"),
            maxBodyBytes: 5),
        .init(
            "body over maxBodyBytes, from the size line", "413 rule", "3\r\nabc\r\n3\r\n", .failure(.payloadTooLarge),
            maxBodyBytes: 5),
        .init("one chunk over maxBodyBytes", "413 rule", "10\r\n", .failure(.payloadTooLarge), maxBodyBytes: 15),
        .init(
            "trailers", "RFC 9112 §7.1.2; llhttp", "1\r\nx\r\n0\r\nVary: *\r\nContent-Type: text/plain\r\n\r\n",
            done("1\r\nx\r\n0\r\nVary: *\r\nContent-Type: text/plain\r\n\r\n", "x")),
        .init(
            "trailer at its limit", "bounded trailers", "0\r\nA: 012345678\r\n\r\n",
            done("0\r\nA: 012345678\r\n\r\n", ""), limits: small),
        .init(
            "trailer over its limit", "bounded trailers", "0\r\nA: 0123456789\r\n\r\n", .failure(.headerTooLarge),
            limits: small),
        .init("trailer without colon", "RFC 9112 §5", "0\r\nFoo\r\n\r\n", bad("trailer line without colon")),
        .init("trailer with empty name", "RFC 9112 §5", "0\r\n: v\r\n\r\n", bad("empty trailer field name")),
        .init("trailer obs-fold", "reliability.md", "0\r\nA: b\r\n c\r\n\r\n", bad("obsolete line folding in trailer")),
        .init(
            "trailer space before colon", "reliability.md", "0\r\nA : b\r\n\r\n",
            bad("whitespace before colon in trailer")),
        .init(
            "trailer NUL in value", "reliability.md", "0\r\nA: b\u{0}\r\n\r\n",
            bad("invalid character in trailer value")),
        .init("trailer bare LF", "reliability.md", "0\r\nA: b\n\r\n", bad("bare LF in trailer")),
        .init("trailer bare CR", "reliability.md", "0\r\nA: b\rc\r\n\r\n", bad("bare CR in trailer")),
        .init("bare LF ending trailers", "reliability.md", "0\r\n\n", bad("bare LF in trailer")),
        .init("bare CR ending trailers", "reliability.md", "0\r\n\rX", bad("bare CR at end of trailer section")),
    ]

    @Test("Chunked bodies, whole, split at every point and byte by byte", arguments: vectors)
    func decode(vector: ChunkedVector) {
        let outcome = decodeChunkedInEverySplit(vector.input, maxBodyBytes: vector.maxBodyBytes, limits: vector.limits)
        #expect(outcome == vector.expected)
    }

    @Test("Too many trailer lines is 431")
    func trailerLines() {
        let limits = ParserLimits(maxHeaderLines: 2)
        #expect(
            decodeChunkedInEverySplit(bytes("0\r\nA: 1\r\nB: 2\r\n\r\n"), limits: limits)
                == .complete(consumed: 17, body: []))
        #expect(
            decodeChunkedInEverySplit(bytes("0\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n"), limits: limits)
                == .failure(.headerTooLarge))
    }

    @Test("After complete, further input is not consumed; after failure, the failure repeats")
    func terminalStates() {
        var decoder = ChunkedDecoder(maxBodyBytes: 100, limits: ParserLimits())
        var body: [UInt8] = []
        #expect(decoder.decode(bytes("0\r\n\r\nmore"), into: &body) == .complete(consumed: 5))
        #expect(decoder.isComplete)
        #expect(decoder.decode(bytes("more"), into: &body) == .complete(consumed: 0))
        var failing = ChunkedDecoder(maxBodyBytes: 100, limits: ParserLimits())
        #expect(failing.decode(bytes("z"), into: &body) == .failure(.badRequest("invalid chunk size")))
        #expect(failing.decode(bytes("0\r\n\r\n"), into: &body) == .failure(.badRequest("invalid chunk size")))
        #expect(!failing.isComplete)
        #expect(body.isEmpty)
    }

    @Test("Data is appended to an existing body buffer")
    func appends() {
        var decoder = ChunkedDecoder(maxBodyBytes: 100)
        var body = Array("pre:".utf8)
        #expect(decoder.decode(bytes("2\r\nab\r\n"), into: &body) == .incomplete(consumed: 7))
        #expect(decoder.decode(bytes("1\r\nc\r\n0\r\n\r\n"), into: &body) == .complete(consumed: 11))
        #expect(body == Array("pre:abc".utf8))
    }

    @Test("A large body decodes across many reads")
    func largeBody() {
        var input: [UInt8] = []
        var expected: [UInt8] = []
        for size in [1, 15, 16, 255, 4096, 10000] {
            let data = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            input += Array(String(size, radix: 16).utf8) + bytes("\r\n") + data + bytes("\r\n")
            expected += data
        }
        input += bytes("0\r\n\r\n")
        for readSize in [1, 7, 100, 4096, input.count] {
            var pieces: [ArraySlice<UInt8>] = []
            var offset = 0
            while offset < input.count {
                pieces.append(input[offset..<min(input.count, offset + readSize)])
                offset += readSize
            }
            #expect(
                decodeChunked(pieces: pieces) == .complete(consumed: input.count, body: expected),
                "reads of \(readSize)")
        }
    }
}
