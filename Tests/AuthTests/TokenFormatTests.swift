import Auth
import Crypto
import Testing

/// The token's shape: segments, strict base64url, strict JSON objects, header parameters, size.
struct TokenFormatTests {
    static let algorithms = JWTAlgorithm.allCases

    @Test(arguments: algorithms)
    func segmentCount(_ algorithm: JWTAlgorithm) throws {
        let fixture = try AlgorithmFixture(algorithm)
        let token = try fixture.token()
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let shapes = [
            parts[0] + "." + parts[1], parts[0], token + ".", token + "." + parts[2], "." + token,
            parts[0] + "." + parts[1] + "." + parts[1] + "." + parts[2] + "." + parts[2], ".", "...", "....",
        ]
        for shape in shapes {
            #expect(reason(fixture.outcome(shape)) == .malformedToken(detail: "not three segments"))
        }
    }

    /// Each segment in turn made non-canonical; the signature is recomputed so only the encoding is wrong.
    @Test(arguments: algorithms)
    func malformedBase64(_ algorithm: JWTAlgorithm) throws {
        let fixture = try AlgorithmFixture(algorithm)
        // Pad the JSON with spaces until neither encoding is a multiple of 4 long, so trailing bits exist.
        var header = fixture.header
        while Base64.encodeURL(header).utf8.count % 4 == 0 { header += " " }
        var payload = AlgorithmFixture.claims()
        while Base64.encodeURL(payload).utf8.count % 4 == 0 { payload += " " }
        let encodedHeader = Base64.encodeURL(header)
        let encodedPayload = Base64.encodeURL(payload)
        let good = try TokenFactory.signed(encodedHeader + "." + encodedPayload, signer: fixture.signer)
        #expect(principal(fixture.outcome(good)) != nil)
        let signature = String(good.split(separator: ".")[2])

        let mutations: [(String, (String) -> String)] = [
            ("padding", { $0 + "=" }), ("double padding", { $0 + "==" }),
            ("plus", { "+" + $0.dropFirst() }), ("slash", { String($0.dropLast()) + "/" }),
            ("space", { " " + $0 }), ("inner space", { String($0.prefix(4)) + " " + $0.dropFirst(4) }),
            ("newline", { String($0.prefix(4)) + "\n" + $0.dropFirst(4) }), ("tab", { $0 + "\t" }),
            ("trailing bits", { Self.settingUnusedBits($0) }), ("length 1 modulo 4", { Self.oneModFour($0) }),
            ("non-ASCII", { $0 + "é" }),
        ]
        // Directly to the verifier: through `Authorization`, a leading space would be taken as a separator.
        let verifier = fixture.authenticator()
        func outcome(_ token: String) -> AuthFailure.Reason? {
            reason(verifier.verifyToken(token, now: AlgorithmFixture.now))
        }
        for (name, mutate) in mutations {
            let badHeader = try TokenFactory.signed(
                mutate(encodedHeader) + "." + encodedPayload, signer: fixture.signer)
            #expect(outcome(badHeader) == .malformedToken(detail: "header is not base64url"), "\(name)")
            let badPayload = try TokenFactory.signed(
                encodedHeader + "." + mutate(encodedPayload), signer: fixture.signer)
            #expect(outcome(badPayload) == .malformedToken(detail: "payload is not base64url"), "\(name)")
            let badSignature = encodedHeader + "." + encodedPayload + "." + mutate(signature)
            #expect(outcome(badSignature) == .malformedToken(detail: "signature is not base64url"), "\(name)")
        }
    }

    /// `text` lengthened with `A` digits to a length of 1 modulo 4 (which spells no whole byte).
    static func oneModFour(_ text: String) -> String {
        var longer = text + "A"
        while longer.utf8.count % 4 != 1 { longer += "A" }
        return longer
    }

    /// `text` with its last digit's unused low bits set (text's length must not be a multiple of 4).
    static func settingUnusedBits(_ text: String) -> String {
        let digits = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let last = text.last!
        let value = digits.firstIndex(of: last)!
        return String(text.dropLast()) + String(digits[value | 1])
    }

    @Test(arguments: algorithms)
    func nonObjectHeaderOrPayload(_ algorithm: JWTAlgorithm) throws {
        let fixture = try AlgorithmFixture(algorithm)
        for json in ["[]", "\"JWT\"", "1", "null", "true", "[{\"alg\":\"\(algorithm.rawValue)\"}]", "", "{", "{}x"] {
            let badHeader = try TokenFactory.token(
                header: json, payload: AlgorithmFixture.claims(), signer: fixture.signer)
            #expect(
                reason(fixture.outcome(badHeader)) == .malformedToken(detail: "header is not a JSON object"), "\(json)")
            let badPayload = try fixture.token(json)
            #expect(
                reason(fixture.outcome(badPayload)) == .malformedToken(detail: "payload is not a JSON object"),
                "\(json)")
        }
    }

    @Test(arguments: algorithms)
    func strictJSON(_ algorithm: JWTAlgorithm) throws {
        let fixture = try AlgorithmFixture(algorithm)
        let alg = "\"\(algorithm.rawValue)\""
        let headers = [
            "{\"alg\":\(alg),\"alg\":\"none\"}", "{\"alg\":\"none\",\"alg\":\(alg)}", "{\"alg\":\(alg),}",
            "{\"alg\":\(alg)} // comment", "{'alg':\(alg)}", "{\"alg\":\(alg),\"kid\":\"\u{1}\"}",
        ]
        for header in headers {
            let token = try TokenFactory.token(
                header: header, payload: AlgorithmFixture.claims(), signer: fixture.signer)
            #expect(
                reason(fixture.outcome(token)) == .malformedToken(detail: "header is not a JSON object"), "\(header)")
        }
        let claims = AlgorithmFixture.claims()
        let payloads = [
            String(claims.dropLast()) + ",\"sub\":\"admin\"}",  // duplicate sub
            String(claims.dropLast()) + ",\"exp\":9999999999}",  // duplicate exp
            String(claims.dropLast()) + ",}", claims + claims, "{\"sub\":\"a\" \"exp\":1}",
        ]
        for payload in payloads {
            #expect(
                reason(fixture.outcome(try fixture.token(payload)))
                    == .malformedToken(detail: "payload is not a JSON object"),
                "\(payload)")
        }
        // Invalid UTF-8 inside a string of the payload.
        let rawPayload = Array(claims.utf8.dropLast()) + Array(",\"x\":\"".utf8) + [0xff, 0xfe] + Array("\"}".utf8)
        let input = Base64.encodeURL(fixture.header) + "." + Base64.encodeURL(rawPayload)
        let token = try TokenFactory.signed(input, signer: fixture.signer)
        #expect(reason(fixture.outcome(token)) == .malformedToken(detail: "payload is not a JSON object"))
    }

    @Test(arguments: algorithms)
    func headerParameters(_ algorithm: JWTAlgorithm) throws {
        let fixture = try AlgorithmFixture(algorithm)
        let alg = "\"\(algorithm.rawValue)\""
        let cases: [(String, AuthFailure.Reason?)] = [
            ("{\"alg\":\(alg)}", nil), ("{\"typ\":\"jwt\",\"alg\":\(alg)}", nil),
            ("{\"alg\":\(alg),\"typ\":\"at+jwt\"}", nil),
            ("{\"alg\":\(alg),\"typ\":\"application/JWT\"}", nil),
            ("{\"alg\":\(alg),\"cty\":\"x\",\"x5u\":\"https://x\"}", nil),
            ("{\"alg\":\(alg),\"crit\":[\"exp\"],\"exp\":1}", .unsupportedHeader(detail: "crit is not supported")),
            ("{\"alg\":\(alg),\"crit\":[]}", .unsupportedHeader(detail: "crit is not supported")),
            ("{\"alg\":\(alg),\"typ\":\"JWE\"}", .unsupportedHeader(detail: "typ is not JWT")),
            ("{\"alg\":\(alg),\"typ\":\"JOSE\"}", .unsupportedHeader(detail: "typ is not JWT")),
            ("{\"alg\":\(alg),\"typ\":1}", .unsupportedHeader(detail: "typ is not JWT")),
            ("{\"alg\":\(alg),\"kid\":1}", .malformedToken(detail: "kid is not a string")),
            ("{\"typ\":\"JWT\"}", .malformedToken(detail: "header has no alg string")),
            ("{\"alg\":[\(alg)]}", .malformedToken(detail: "header has no alg string")),
        ]
        for (header, expected) in cases {
            let token = try TokenFactory.token(
                header: header, payload: AlgorithmFixture.claims(), signer: fixture.signer)
            #expect(reason(fixture.outcome(token)) == expected, "\(header)")
        }
    }

    /// The size limit holds before any decoding, and the same token passes under a larger limit.
    @Test(arguments: algorithms)
    func oversizedTokens(_ algorithm: JWTAlgorithm) throws {
        let fixture = try AlgorithmFixture(algorithm)
        let padding = String(repeating: "x", count: 8000)
        let token = try fixture.token(AlgorithmFixture.claims(["pad": "\"\(padding)\""]))
        #expect(token.utf8.count > 8192)
        #expect(reason(fixture.outcome(token)) == .tokenTooLarge(bytes: token.utf8.count, limit: 8192))
        #expect(principal(fixture.outcome(token, settings: AlgorithmFixture.settings(maxTokenBytes: 16384))) != nil)
        let garbage = String(repeating: "!", count: 9000)
        #expect(reason(fixture.outcome(garbage)) == .tokenTooLarge(bytes: 9000, limit: 8192))
        #expect(
            reason(fixture.authenticator().verifyToken(garbage, now: 0)) == .tokenTooLarge(bytes: 9000, limit: 8192))
        let exactly = String(repeating: "A", count: 8192)
        #expect(reason(fixture.outcome(exactly)) == .malformedToken(detail: "not three segments"))
    }
}
