import HTTP1
import Testing

/// One row of a strict-profile table: a request head, the rule it exercises, and the verdict.
struct HeadVector: Sendable, CustomTestStringConvertible {
    /// The expected verdict.
    enum Verdict: Sendable, Equatable {
        /// A complete head that spans the whole input.
        case complete
        /// More bytes needed.
        case incomplete
        /// Exactly this error.
        case failure(ParseError)
    }

    /// The rule exercised.
    let rule: String
    /// Where the rule comes from (RFC section or docs/reliability.md).
    let source: String
    /// The bytes sent.
    let input: [UInt8]
    /// The expected verdict.
    let verdict: Verdict
    /// The limits in force.
    var limits = ParserLimits()

    init(_ rule: String, _ source: String, _ input: String, _ verdict: Verdict, limits: ParserLimits = ParserLimits()) {
        self.rule = rule
        self.source = source
        self.input = Array(input.utf8)
        self.verdict = verdict
        self.limits = limits
    }

    init(_ rule: String, _ source: String, bytes input: [UInt8], _ verdict: Verdict) {
        self.rule = rule
        self.source = source
        self.input = input
        self.verdict = verdict
    }

    var testDescription: String { "\(rule) [\(source)]" }

    /// Checks the vector whole and in every prefix.
    func check(sourceLocation: SourceLocation = #_sourceLocation) {
        let result = parseHeadInEveryPrefix(input, limits: limits, sourceLocation: sourceLocation)
        switch (verdict, result) {
        case (.complete, .complete(_, let consumed)):
            #expect(consumed == input.count, "\(rule)", sourceLocation: sourceLocation)
        case (.incomplete, .incomplete):
            break
        case (.failure(let expected), .failure(let actual)):
            #expect(actual == expected, "\(rule)", sourceLocation: sourceLocation)
        default:
            Issue.record("\(rule): expected \(verdict), got \(result)", sourceLocation: sourceLocation)
        }
    }
}

/// Shorthand for a 400 with its context.
private func bad(_ context: String) -> HeadVector.Verdict { .failure(.badRequest(context)) }

/// Builds `GET / HTTP/1.1` with a Host line and the given extra field lines.
private func get(_ fields: String = "", version: String = "1.1") -> String {
    "GET / HTTP/\(version)\r\nHost: a\r\n\(fields)\r\n"
}

/// Builds `POST / HTTP/1.1` with a Host line and the given extra field lines.
private func post(_ fields: String) -> String {
    "POST / HTTP/1.1\r\nHost: a\r\n\(fields)\r\n"
}

@Suite struct RequestParserTests {
    static let framing: [HeadVector] = [
        .init(
            "TE chunked + CL", "reliability.md; RFC 9112 §6.1",
            post("Transfer-Encoding: chunked\r\nContent-Length: 5\r\n"),
            bad("both Transfer-Encoding and Content-Length")),
        .init(
            "CL + TE chunked", "reliability.md; RFC 9112 §6.1",
            post("Content-Length: 5\r\nTransfer-Encoding: chunked\r\n"),
            bad("both Transfer-Encoding and Content-Length")),
        .init(
            "TE gzip + CL is 400, not 501", "RFC 9112 §6.1", post("Transfer-Encoding: gzip\r\nContent-Length: 5\r\n"),
            bad("both Transfer-Encoding and Content-Length")),
        .init(
            "TE gzip", "reliability.md", post("Transfer-Encoding: gzip\r\n"),
            .failure(.notImplemented("unsupported transfer coding"))),
        .init(
            "TE identity", "reliability.md", post("Transfer-Encoding: identity\r\n"),
            .failure(.notImplemented("unsupported transfer coding"))),
        .init(
            "TE gzip, chunked", "reliability.md", post("Transfer-Encoding: gzip, chunked\r\n"),
            .failure(.notImplemented("unsupported transfer coding"))),
        .init(
            "TE chunked, gzip", "reliability.md", post("Transfer-Encoding: chunked, gzip\r\n"),
            .failure(.notImplemented("unsupported transfer coding"))),
        .init(
            "TE chunkedchunked", "llhttp transfer-encoding.md", post("Transfer-Encoding: chunkedchunked\r\n"),
            .failure(.notImplemented("unsupported transfer coding"))),
        .init(
            "TE empty", "reliability.md", post("Transfer-Encoding:\r\n"),
            .failure(.notImplemented("unsupported transfer coding"))),
        .init(
            "TE twice", "RFC 9112 §6.1 (chunked at most once)",
            post("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n"),
            bad("more than one Transfer-Encoding header")),
        .init(
            "TE in HTTP/1.0", "RFC 9112 §6.1", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n",
            bad("Transfer-Encoding in an HTTP/1.0 request")),
        .init(
            "TE Chunked, any case, OWS", "RFC 9112 §7 (case-insensitive)", post("transfer-encoding:  ChUnKeD \r\n"),
            .complete),
    ]

    @Test("Transfer-Encoding and Content-Length framing", arguments: framing)
    func transferEncoding(vector: HeadVector) { vector.check() }

    static let contentLength: [HeadVector] = [
        .init("CL +5", "reliability.md", post("Content-Length: +5\r\n"), bad("invalid Content-Length")),
        .init("CL -1", "reliability.md", post("Content-Length: -1\r\n"), bad("invalid Content-Length")),
        .init("CL 0x5", "reliability.md", post("Content-Length: 0x5\r\n"), bad("invalid Content-Length")),
        .init(
            "CL 4 2", "reliability.md; llhttp content-length.md", post("Content-Length: 4 2\r\n"),
            bad("invalid Content-Length")),
        .init("CL empty", "reliability.md", post("Content-Length:\r\n"), bad("empty Content-Length")),
        .init("CL only spaces", "reliability.md", post("Content-Length:   \r\n"), bad("empty Content-Length")),
        .init(
            "CL list 5,5", "reliability.md; RFC 9110 §8.6", post("Content-Length: 5,5\r\n"),
            bad("invalid Content-Length")),
        .init("CL list 5, 6", "reliability.md", post("Content-Length: 5, 6\r\n"), bad("invalid Content-Length")),
        .init(
            "CL overflow", "reliability.md", post("Content-Length: 9223372036854775808\r\n"),
            bad("Content-Length overflow")),
        .init(
            "CL huge", "llhttp content-length.md", post("Content-Length: 1000000000000000000000\r\n"),
            bad("Content-Length overflow")),
        .init("CL Int.max fits", "RFC 9110 §8.6", post("Content-Length: 9223372036854775807\r\n"), .complete),
        .init(
            "CL duplicate, different", "reliability.md", post("Content-Length: 1\r\nContent-Length: 2\r\n"),
            bad("more than one Content-Length")),
        .init(
            "CL duplicate, identical (strict)", "reliability.md (be strict)",
            post("Content-Length: 5\r\ncontent-length: 5\r\n"),
            bad("more than one Content-Length")),
        .init("CL leading zeros", "RFC 9110 §8.6 (1*DIGIT)", post("Content-Length: 007\r\n"), .complete),
        .init("CL with OWS", "RFC 9110 §5.5", post("Content-Length: \t 7 \t\r\n"), .complete),
        .init(
            "CL fullwidth digit", "reliability.md (1*DIGIT)", post("Content-Length: \u{FF11}\r\n"),
            bad("invalid Content-Length")),
    ]

    @Test("Content-Length must be 1*DIGIT, single, no overflow", arguments: contentLength)
    func contentLengthRules(vector: HeadVector) { vector.check() }

    static let lines: [HeadVector] = [
        .init(
            "obs-fold with SP", "reliability.md; RFC 9112 §5.2", get("Foo: a\r\n b\r\n"), bad("obsolete line folding")),
        .init(
            "obs-fold with HTAB", "reliability.md; RFC 9112 §5.2", get("Foo: a\r\n\tb\r\n"),
            bad("obsolete line folding")),
        .init(
            "SP before colon", "reliability.md; RFC 9112 §5.1", "GET / HTTP/1.1\r\nHost : a\r\n\r\n",
            bad("whitespace before colon in header line")),
        .init(
            "HTAB before colon", "reliability.md; RFC 9112 §5.1", get("Foo\t: a\r\n"),
            bad("whitespace before colon in header line")),
        .init(
            "SP before first header", "reliability.md; RFC 9112 §2.2", "GET / HTTP/1.1\r\n Host: a\r\n\r\n",
            bad("whitespace before the first header line")),
        .init(
            "HTAB before first header", "reliability.md; RFC 9112 §2.2", "GET / HTTP/1.1\r\n\tHost: a\r\n\r\n",
            bad("whitespace before the first header line")),
        .init(
            "bare CR in request line", "reliability.md; RFC 9112 §2.2", "GET / HTTP/1.1\rHost: a\r\n\r\n",
            bad("bare CR in request line")),
        .init("bare CR in field value", "reliability.md", get("Foo: a\rb\r\n"), bad("bare CR in header section")),
        .init(
            "bare CR ending the head", "reliability.md; llhttp invalid.md",
            "GET / HTTP/1.1\r\nHost: a\r\n\rZGET /evil: HTTP/1.1\r\n",
            bad("bare CR in header section")),
        .init(
            "bare CR at line start", "reliability.md", "GET / HTTP/1.1\r\nHost: a\r\n\rX: y\r\n\r\n",
            bad("bare CR in header section")),
        .init(
            "bare LF ending request line", "reliability.md", "GET / HTTP/1.1\nHost: a\r\n\r\n",
            bad("bare LF in request line")),
        .init(
            "bare LF ending a field line", "reliability.md", "GET / HTTP/1.1\r\nHost: a\nFoo: b\r\n\r\n",
            bad("bare LF in header section")),
        .init(
            "bare LF ending the head", "reliability.md", "GET / HTTP/1.1\r\nHost: a\r\n\n",
            bad("bare LF in header section")),
        .init(
            "bare LF before request line", "reliability.md", "\nGET / HTTP/1.1\r\nHost: a\r\n\r\n",
            bad("bare LF before the request line")),
    ]

    @Test("CRLF everywhere; no obs-fold, no whitespace before colon or first header", arguments: lines)
    func lineRules(vector: HeadVector) { vector.check() }

    static let forbiddenBytes: [HeadVector] = [
        .init(
            "NUL in target", "reliability.md", "GET /a\u{0}b HTTP/1.1\r\nHost: a\r\n\r\n",
            bad("invalid character in request target")),
        .init(
            "CTL 0x01 in target", "reliability.md", "GET /a\u{1}b HTTP/1.1\r\nHost: a\r\n\r\n",
            bad("invalid character in request target")),
        .init(
            "HTAB in target", "reliability.md; RFC 3986", "GET /a\tb HTTP/1.1\r\nHost: a\r\n\r\n",
            bad("invalid character in request target")),
        .init(
            "DEL in target", "reliability.md", "GET /a\u{7F}b HTTP/1.1\r\nHost: a\r\n\r\n",
            bad("invalid character in request target")),
        .init(
            "non-ASCII in target", "RFC 3986; llhttp uri.md", "GET /\u{3B4} HTTP/1.1\r\nHost: a\r\n\r\n",
            bad("invalid character in request target")),
        .init(
            "fragment in target", "RFC 9112 §3.2 (no fragment)", "GET /a#b HTTP/1.1\r\nHost: a\r\n\r\n",
            bad("invalid character in request target")),
        .init(
            "NUL in field value", "reliability.md; RFC 9110 §5.5", get("Foo: a\u{0}b\r\n"),
            bad("invalid character in header value")),
        .init(
            "CTL 0x0C in field value", "reliability.md; llhttp lenient-headers.md", get("Foo: a\u{C}b\r\n"),
            bad("invalid character in header value")),
        .init(
            "DEL in field value", "reliability.md", get("Foo: a\u{7F}b\r\n"), bad("invalid character in header value")),
        .init("ESC in field value", "reliability.md", get("Foo: \u{1B}\r\n"), bad("invalid character in header value")),
        .init("HTAB inside field value is allowed", "RFC 9110 §5.5", get("Foo: a\tb\r\n"), .complete),
        .init(
            "obs-text (UTF-8) in field value is allowed", "RFC 9110 §5.5", get("Foo: D\u{FC}sseldorf\r\n"), .complete),
        .init(
            "obs-text (invalid UTF-8) in field value is allowed", "RFC 9110 §5.5",
            bytes: bytes("GET / HTTP/1.1\r\nHost: a\r\nFoo: ") + [0xFF, 0x80] + bytes("\r\n\r\n"), .complete),
    ]

    @Test("No NUL, CTL or DEL in the target or a field value (HTAB allowed in values)", arguments: forbiddenBytes)
    func forbiddenByteRules(vector: HeadVector) { vector.check() }

    static let names: [HeadVector] = [
        .init("line without colon", "reliability.md; RFC 9112 §5", get("Foo\r\n"), bad("header line without colon")),
        .init("line without colon, bare LF", "reliability.md", get("Foo\n"), bad("header line without colon")),
        .init("empty name", "RFC 9110 §5.1 (token)", get(": v\r\n"), bad("empty header name")),
        .init(
            "@ in name", "RFC 9110 §5.6.2; llhttp invalid.md", get("Fo@: v\r\n"),
            bad("invalid character in header name")),
        .init("CTL in name", "llhttp invalid.md", get("Foo\u{1}test: v\r\n"), bad("invalid character in header name")),
        .init("non-ASCII in name", "RFC 9110 §5.6.2", get("F\u{F6}o: v\r\n"), bad("invalid character in header name")),
        .init("quote in name", "RFC 9110 §5.6.2", get("\"Foo\": v\r\n"), bad("invalid character in header name")),
        .init("all tchar symbols in a name", "RFC 9110 §5.6.2", get("!#$%&'*+-.^_`|~09az: v\r\n"), .complete),
        .init(
            "method with (", "RFC 9110 §9.1 (token)", "GE(T / HTTP/1.1\r\nHost: a\r\n\r\n",
            bad("invalid character in method")),
        .init(
            "method with non-ASCII", "RFC 9110 §9.1", "G\u{C9}T / HTTP/1.1\r\nHost: a\r\n\r\n",
            bad("invalid character in method")),
        .init(
            "method with HTAB", "RFC 9112 §3", "GET\t/ HTTP/1.1\r\nHost: a\r\n\r\n", bad("invalid character in method")),
        .init("missing method", "RFC 9112 §3", " / HTTP/1.1\r\nHost: a\r\n\r\n", bad("missing method")),
        .init(
            "two spaces after method", "RFC 9112 §3", "GET  / HTTP/1.1\r\nHost: a\r\n\r\n",
            bad("missing request target")),
        .init(
            "space inside target", "RFC 9112 §3; llhttp uri.md", "GET /a b HTTP/1.1\r\nHost: a\r\n\r\n",
            bad("malformed HTTP version")),
        .init(
            "unknown token method parses (501 later)", "RFC 9110 §9.1", "PURGE / HTTP/1.1\r\nHost: a\r\n\r\n", .complete
        ),
        .init(
            "lower-case get is another method", "RFC 9110 §9.1 (case-sensitive)", "get / HTTP/1.1\r\nHost: a\r\n\r\n",
            .complete),
    ]

    @Test("Header names and methods are tokens; a field line needs a colon", arguments: names)
    func tokenRules(vector: HeadVector) { vector.check() }

    static let host: [HeadVector] = [
        .init(
            "HTTP/1.1 without Host", "reliability.md; RFC 9112 §3.2", "GET / HTTP/1.1\r\n\r\n",
            bad("missing Host header")),
        .init(
            "two Host", "reliability.md; RFC 9112 §3.2", "GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n",
            bad("more than one Host header")),
        .init(
            "two Host, different case", "reliability.md", "GET / HTTP/1.1\r\nHost: a\r\nhOST: b\r\n\r\n",
            bad("more than one Host header")),
        .init(
            "two Host in HTTP/1.0", "reliability.md", "GET / HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n",
            bad("more than one Host header")),
        .init("HTTP/1.0 without Host", "reliability.md", "GET / HTTP/1.0\r\n\r\n", .complete),
        .init(
            "empty Host", "RFC 9112 §3.2 (origin-form has an authority)", "GET / HTTP/1.1\r\nHost:\r\n\r\n",
            bad("empty Host header")),
        .init("Host with space", "RFC 3986 §3.2.2", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", bad("invalid Host header")),
        .init(
            "Host with userinfo", "RFC 9110 §4.2.4", "GET / HTTP/1.1\r\nHost: u@a\r\n\r\n", bad("invalid Host header")),
        .init("Host with slash", "RFC 3986 §3.2.2", "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n", bad("invalid Host header")),
        .init("Host IPv6 and port", "RFC 3986 §3.2.2", "GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n", .complete),
    ]

    @Test("Exactly one valid Host in HTTP/1.1, at most one in HTTP/1.0", arguments: host)
    func hostRules(vector: HeadVector) { vector.check() }

    static let small = ParserLimits(maxHeaderBytes: 64, maxHeaderLines: 3, maxTargetBytes: 16)
    static let limitVectors: [HeadVector] = [
        // "GET / HTTP/1.1\r\n" (16) + "Host: a\r\n" (9) + "X: " (3) + value + "\r\n" (2) + "\r\n" (2) = 32 + value
        .init(
            "head exactly maxHeaderBytes", "reliability.md", get("X: " + String(repeating: "v", count: 32) + "\r\n"),
            .complete, limits: small),
        .init(
            "head one byte over maxHeaderBytes", "reliability.md",
            get("X: " + String(repeating: "v", count: 33) + "\r\n"),
            .failure(.headerTooLarge), limits: small),
        .init(
            "unfinished head already over maxHeaderBytes", "reliability.md",
            "GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "v", count: 60), .failure(.headerTooLarge),
            limits: small),
        .init("maxHeaderLines lines", "reliability.md", get("A: 1\r\nB: 2\r\n"), .complete, limits: small),
        .init(
            "one line over maxHeaderLines", "reliability.md", get("A: 1\r\nB: 2\r\nC: 3\r\n"),
            .failure(.headerTooLarge),
            limits: small),
        .init(
            "target exactly maxTargetBytes", "reliability.md",
            "GET /" + String(repeating: "t", count: 15) + " HTTP/1.1\r\nHost: a\r\n\r\n",
            .complete, limits: small),
        .init(
            "target one byte over maxTargetBytes", "reliability.md",
            "GET /" + String(repeating: "t", count: 16) + " HTTP/1.1\r\nHost: a\r\n\r\n", .failure(.uriTooLong),
            limits: small),
        .init(
            "unfinished target already over maxTargetBytes", "reliability.md",
            "GET /" + String(repeating: "t", count: 16),
            .failure(.uriTooLong), limits: small),
        .init(
            "default: 8 KiB + 1 target is 414, not 431", "reliability.md",
            "GET /" + String(repeating: "t", count: 8192) + " HTTP/1.1\r\nHost: a\r\n\r\n", .failure(.uriTooLong)),
        .init(
            "default: target fits but head does not: 431", "reliability.md",
            "GET /" + String(repeating: "t", count: 8180) + " HTTP/1.1\r\nHost: a\r\n\r\n", .failure(.headerTooLarge)),
        .init(
            "default: 8 KiB head is accepted", "reliability.md",
            get("X: " + String(repeating: "v", count: 8192 - 32) + "\r\n"), .complete),
        .init(
            "default: 8 KiB + 1 head is 431", "reliability.md",
            get("X: " + String(repeating: "v", count: 8192 - 31) + "\r\n"), .failure(.headerTooLarge)),
        .init(
            "default: 100 field lines", "reliability.md",
            get((1...99).map { "X\($0): v\r\n" }.joined()), .complete),
        .init(
            "default: 101 field lines is 431", "reliability.md",
            get((1...100).map { "X\($0): v\r\n" }.joined()), .failure(.headerTooLarge)),
    ]

    @Test("Head over 8 KiB or 100 lines is 431; target over 8 KiB is 414", arguments: limitVectors)
    func limits(vector: HeadVector) { vector.check() }

    static let versions: [HeadVector] = [
        .init("HTTP/1.0", "RFC 9112 §2.3", "GET / HTTP/1.0\r\n\r\n", .complete),
        .init("HTTP/1.1", "RFC 9112 §2.3", "GET / HTTP/1.1\r\nHost: a\r\n\r\n", .complete),
        .init("HTTP/2.0", "reliability.md", "GET / HTTP/2.0\r\nHost: a\r\n\r\n", .failure(.versionNotSupported)),
        .init("HTTP/1.2", "reliability.md", "GET / HTTP/1.2\r\nHost: a\r\n\r\n", .failure(.versionNotSupported)),
        .init("HTTP/0.9", "reliability.md", "GET / HTTP/0.9\r\n\r\n", .failure(.versionNotSupported)),
        .init("HTTP/5.6 without CRLF", "llhttp invalid.md", "GET / HTTP/5.6", .failure(.versionNotSupported)),
        .init(
            "lower-case http", "RFC 9112 §2.3 (case-sensitive)", "GET / http/1.1\r\nHost: a\r\n\r\n",
            bad("malformed HTTP version")),
        .init("HTTP/1", "RFC 9112 §2.3", "GET / HTTP/1\r\nHost: a\r\n\r\n", bad("malformed HTTP version")),
        .init("HTTP/11.1", "RFC 9112 §2.3", "GET / HTTP/11.1\r\nHost: a\r\n\r\n", bad("malformed HTTP version")),
        .init("HTTP/1.10", "RFC 9112 §2.3", "GET / HTTP/1.10\r\nHost: a\r\n\r\n", bad("malformed HTTP version")),
        .init("ICE/1.0", "llhttp invalid.md", "GET / ICE/1.0\r\nHost: a\r\n\r\n", bad("malformed HTTP version")),
        .init(
            "space after version", "RFC 9112 §3", "GET / HTTP/1.1 \r\nHost: a\r\n\r\n", bad("malformed HTTP version")),
        .init("HTTP/0.9 style request line", "RFC 9112 §3", "GET /\r\n\r\n", bad("request line without HTTP version")),
    ]

    @Test("Only HTTP/1.0 and HTTP/1.1 (505); malformed versions are 400", arguments: versions)
    func versionRules(vector: HeadVector) { vector.check() }

    static let emptyLines: [HeadVector] = [
        .init("one leading CRLF is ignored", "RFC 9112 §2.2", "\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n", .complete),
        .init(
            "two leading CRLFs", "RFC 9112 §2.2 (we ignore exactly one)", "\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n",
            bad("more than one empty line before the request line")),
        .init(
            "leading bare CR", "reliability.md", "\rGET / HTTP/1.1\r\nHost: a\r\n\r\n",
            bad("bare CR before the request line")),
        .init("only CRLF so far", "RFC 9112 §2.2", "\r\n", .incomplete),
    ]

    @Test("Exactly one empty line before the request line is ignored", arguments: emptyLines)
    func leadingEmptyLines(vector: HeadVector) { vector.check() }

    static let targets: [HeadVector] = [
        .init("OPTIONS *", "RFC 9112 §3.2.4", "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", .complete),
        .init(
            "GET *", "RFC 9112 §3.2.4", "GET * HTTP/1.1\r\nHost: a\r\n\r\n",
            bad("asterisk-form target is only for OPTIONS")),
        .init("absolute-form", "RFC 9112 §3.2.2", "GET http://a/b?c HTTP/1.1\r\nHost: a\r\n\r\n", .complete),
        .init(
            "absolute-form https, upper case", "RFC 9112 §3.2.2", "GET HTTPS://a:8443 HTTP/1.1\r\nHost: a\r\n\r\n",
            .complete),
        .init(
            "absolute-form other scheme", "RFC 9112 §3.2.2", "GET ftp://a/b HTTP/1.1\r\nHost: a\r\n\r\n",
            bad("invalid request target")),
        .init(
            "absolute-form userinfo", "RFC 9110 §4.2.4", "GET http://u:p@a/ HTTP/1.1\r\nHost: a\r\n\r\n",
            bad("invalid authority in request target")),
        .init(
            "absolute-form empty authority", "RFC 9110 §4.2.1", "GET http:///x HTTP/1.1\r\nHost: a\r\n\r\n",
            bad("empty authority in request target")),
        .init("relative path", "RFC 9112 §3.2", "GET a/b HTTP/1.1\r\nHost: a\r\n\r\n", bad("invalid request target")),
        .init("CONNECT authority-form", "RFC 9112 §3.2.3", "CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n", .complete),
        .init(
            "CONNECT origin-form", "RFC 9112 §3.2.3", "CONNECT / HTTP/1.1\r\nHost: a\r\n\r\n",
            bad("CONNECT requires host:port")),
        .init(
            "CONNECT without port", "RFC 9112 §3.2.3", "CONNECT a HTTP/1.1\r\nHost: a\r\n\r\n",
            bad("CONNECT requires host:port")),
        .init(
            "authority-form without CONNECT", "RFC 9112 §3.2.3", "GET a:443 HTTP/1.1\r\nHost: a\r\n\r\n",
            bad("invalid request target")),
    ]

    @Test("Request-target forms", arguments: targets)
    func targetForms(vector: HeadVector) { vector.check() }

    @Test("A typical request: every field of the head")
    func typicalRequest() throws {
        let input = bytes(
            "POST /images/upload?size=10&x=%2F HTTP/1.1\r\nHost: api.example.com:8443\r\nUser-Agent: test/1.0\r\n"
                + "Accept:  */* \t\r\nContent-Type: application/json\r\nContent-Length: 2\r\nX-Empty:\r\nx-multi: a\r\n"
                + "X-Multi: b\r\nConnection: keep-alive\r\nExpect: 100-continue\r\n\r\n{}")
        guard case .complete(let head, let consumed) = parseHeadInEveryPrefix(input) else {
            Issue.record("not complete")
            return
        }
        #expect(consumed == input.count - 2)
        #expect(head.method == .POST)
        #expect(head.methodName == "POST")
        #expect(head.target == "/images/upload?size=10&x=%2F")
        #expect(head.path == "/images/upload")
        #expect(head.query == "size=10&x=%2F")
        #expect(head.versionMinor == 1)
        #expect(head.host == "api.example.com:8443")
        #expect(head.contentLength == 2)
        #expect(!head.isChunked)
        #expect(head.keepAlive)
        #expect(head.expectsContinue)
        #expect(head.headers.count == 10)
        #expect(head.headers.first("accept") == "*/*")
        #expect(head.headers.first("X-EMPTY") == "")
        #expect(head.headers.all("X-Multi") == ["a", "b"])
        #expect(head.headers.first("Missing") == nil)
        #expect(head.headers[1].name == "User-Agent")
        let names = head.headers.map(\.name)
        #expect(names.first == "Host" && names.last == "Expect")
        let expected = RequestHead(
            method: .POST, methodName: "POST", target: "/images/upload?size=10&x=%2F", path: "/images/upload",
            query: "size=10&x=%2F", versionMinor: 1,
            headers: HTTPHeaders([
                ("Host", "api.example.com:8443"), ("User-Agent", "test/1.0"), ("Accept", "*/*"),
                ("Content-Type", "application/json"), ("Content-Length", "2"), ("X-Empty", ""), ("x-multi", "a"),
                ("X-Multi", "b"), ("Connection", "keep-alive"), ("Expect", "100-continue"),
            ]),
            host: "api.example.com:8443", contentLength: 2, isChunked: false, keepAlive: true, expectsContinue: true)
        #expect(head == expected)
    }

    /// (target line, expected path, expected query), RFC 9112 §3.2 and RFC 3986 §3.
    static let pathCases: [(String, String, String)] = [
        ("GET / HTTP/1.1", "/", ""),
        ("GET /a/b HTTP/1.1", "/a/b", ""),
        ("GET /a? HTTP/1.1", "/a", ""),
        ("GET /a?b?c=d HTTP/1.1", "/a", "b?c=d"),
        ("GET /?x HTTP/1.1", "/", "x"),
        ("OPTIONS * HTTP/1.1", "*", ""),
        ("GET http://a HTTP/1.1", "/", ""),
        ("GET http://a?q=1 HTTP/1.1", "/", "q=1"),
        ("GET http://a:1/p/q?r HTTP/1.1", "/p/q", "r"),
        ("CONNECT a:443 HTTP/1.1", "", ""),
    ]

    @Test("path and query are cut from the target", arguments: pathCases)
    func pathAndQuery(line: String, path: String, query: String) {
        let result = RequestParser.parseHead(bytes(line + "\r\nHost: a\r\n\r\n"))
        guard case .complete(let head, _) = result else {
            Issue.record("\(line): \(result)")
            return
        }
        #expect(head.path == path)
        #expect(head.query == query)
        #expect(head.target == String(line.split(separator: " ")[1]))
    }

    /// (version, Connection lines, expected keepAlive), RFC 9112 §9.3.
    static let persistence: [(String, [String], Bool)] = [
        ("1.1", [], true),
        ("1.1", ["close"], false),
        ("1.1", ["CLOSE"], false),
        ("1.1", ["keep-alive"], true),
        ("1.1", ["Keep-Alive, Close"], false),
        ("1.1", ["upgrade,close"], false),
        ("1.1", ["keep-alive", "close"], false),
        ("1.1", ["closed"], true),
        ("1.1", [", ,close , "], false),
        ("1.0", [], false),
        ("1.0", ["keep-alive"], true),
        ("1.0", ["Keep-Alive"], true),
        ("1.0", ["foo, keep-alive"], true),
        ("1.0", ["keep-alive, close"], false),
        ("1.0", ["keep-alive", "close"], false),
        ("1.0", ["keep-alives"], false),
    ]

    @Test("keepAlive from the version and Connection tokens", arguments: persistence)
    func keepAlive(version: String, connection: [String], expected: Bool) {
        let fields = connection.map { "Connection: \($0)\r\n" }.joined()
        let result = parseHeadInEveryPrefix(bytes(get(fields, version: version)))
        guard case .complete(let head, _) = result else {
            Issue.record("\(result)")
            return
        }
        #expect(head.keepAlive == expected)
    }

    /// (version, Expect line, expected expectsContinue), RFC 9110 §10.1.1.
    static let expectations: [(String, String?, Bool)] = [
        ("1.1", "100-continue", true),
        ("1.1", "100-Continue", true),
        ("1.1", nil, false),
        ("1.1", "100-continue-later", false),
        ("1.0", "100-continue", false),
    ]

    @Test("expectsContinue only for HTTP/1.1 with Expect: 100-continue", arguments: expectations)
    func expectContinue(version: String, expect: String?, expected: Bool) {
        let fields = expect.map { "Expect: \($0)\r\n" } ?? ""
        guard case .complete(let head, _) = RequestParser.parseHead(bytes(get(fields, version: version))) else {
            Issue.record("not complete")
            return
        }
        #expect(head.expectsContinue == expected)
    }

    @Test("Known and unknown methods")
    func methods() {
        for method in HTTPMethod.allCases where method != .CONNECT {
            let target = method == .OPTIONS ? "*" : "/"
            guard
                case .complete(let head, _) = RequestParser.parseHead(
                    bytes("\(method.name) \(target) HTTP/1.1\r\nHost: a\r\n\r\n"))
            else {
                Issue.record("\(method) not parsed")
                continue
            }
            #expect(head.method == method)
            #expect(head.methodName == method.name)
            #expect(HTTPMethod(name: method.name) == method)
        }
        guard case .complete(let head, _) = RequestParser.parseHead(bytes("M-SEARCH / HTTP/1.1\r\nHost: a\r\n\r\n"))
        else {
            Issue.record("M-SEARCH not parsed")
            return
        }
        #expect(head.method == nil)
        #expect(head.methodName == "M-SEARCH")
        #expect(HTTPMethod(name: "get") == nil)
    }

    @Test("Pipelined heads parse from a slice with a non-zero start")
    func pipelining() {
        let first = "GET /1 HTTP/1.1\r\nHost: a\r\n\r\n"
        let second = "GET /2 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"
        let input = bytes(first + second + "GET /3")
        guard case .complete(let one, let used1) = RequestParser.parseHead(input) else {
            Issue.record("first not complete")
            return
        }
        #expect(one.path == "/1" && used1 == first.utf8.count)
        guard case .complete(let two, let used2) = RequestParser.parseHead(input[used1...]) else {
            Issue.record("second not complete")
            return
        }
        #expect(two.path == "/2" && !two.keepAlive && used2 == second.utf8.count)
        #expect(RequestParser.parseHead(input[(used1 + used2)...]) == .incomplete)
    }

    @Test("A forbidden byte is found at every position of a value and a target (8-byte scans)")
    func forbiddenByteAtEveryOffset() {
        let clean = Array(repeating: UInt8(ascii: "v"), count: 20)
        for position in 0..<clean.count {
            for (byte, context) in [
                (UInt8(0x00), "invalid character in header value"), (0x01, "invalid character in header value"),
                (0x1F, "invalid character in header value"), (0x7F, "invalid character in header value"),
                (0x0A, "bare LF in header section"),
            ] {
                var value = clean
                value[position] = byte
                let input = bytes("GET / HTTP/1.1\r\nHost: a\r\nX: ") + value + bytes("\r\n\r\n")
                #expect(RequestParser.parseHead(input) == .failure(.badRequest(context)), "0x\(byte) at \(position)")
            }
            var tabbed = clean
            tabbed[position] = 0x09
            let ok = bytes("GET / HTTP/1.1\r\nHost: a\r\nX: ") + tabbed + bytes("\r\n\r\n")
            guard case .complete(let head, _) = RequestParser.parseHead(ok) else {
                Issue.record("HTAB at \(position) rejected")
                continue
            }
            var trimmed = tabbed[...]
            while trimmed.first == 0x09 { trimmed.removeFirst() }
            while trimmed.last == 0x09 { trimmed.removeLast() }
            #expect(head.headers.first("x") == String(decoding: trimmed, as: UTF8.self))
            for byte: UInt8 in [0x00, 0x09, 0x7F, 0x80, 0xFF, UInt8(ascii: "#")] {
                var target = [UInt8(ascii: "/")] + clean
                target[position + 1] = byte
                let input = bytes("GET ") + target + bytes(" HTTP/1.1\r\nHost: a\r\n\r\n")
                #expect(
                    RequestParser.parseHead(input) == .failure(.badRequest("invalid character in request target")),
                    "0x\(byte) at \(position)")
            }
        }
    }

    @Test("More than 64 field lines (beyond the stack table) keep order and content")
    func manyFields() {
        let fields = (1...99).map { "X\($0): value-\($0)\r\n" }.joined()
        guard
            case .complete(let head, _) = RequestParser.parseHead(
                bytes("GET / HTTP/1.1\r\nHost: a\r\n" + fields + "\r\n"))
        else {
            Issue.record("not complete")
            return
        }
        #expect(head.headers.count == 100)
        #expect(head.headers[0].name == "Host")
        #expect(head.headers[64] == (name: "X64", value: "value-64"))
        #expect(head.headers[99] == (name: "X99", value: "value-99"))
        #expect(head.headers.first("x70") == "value-70")
        #expect(head.headers.map(\.name) == ["Host"] + (1...99).map { "X\($0)" })
    }

    @Test("Empty input is incomplete")
    func emptyInput() {
        #expect(RequestParser.parseHead([]) == .incomplete)
        #expect(
            RequestParser.parseHead(UnsafeRawBufferPointer(start: nil, count: 0), limits: ParserLimits()) == .incomplete
        )
    }

    /// (error, status), the mapping the server answers with.
    static let statuses: [(ParseError, Int)] = [
        (.badRequest("x"), 400), (.headerTooLarge, 431), (.uriTooLong, 414), (.versionNotSupported, 505),
        (.notImplemented("x"), 501), (.payloadTooLarge, 413),
    ]

    @Test("ParseError status and reason", arguments: statuses)
    func errorStatus(error: ParseError, status: Int) {
        #expect(error.status == status)
        #expect(!error.reason.isEmpty)
        #expect(!error.reason.contains("\r") && !error.reason.contains("\n"))
    }
}
