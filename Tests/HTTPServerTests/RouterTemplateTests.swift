import HTTP1
import Testing

@testable import HTTPServer

/// Template matching in place: segment counts, literals compared byte for byte, parameters decoded
/// only for the template that matches (and a template whose parameter does not decode passes the path
/// on), static paths of every length.
@Suite struct RouterTemplateTests {
    func router() -> Router {
        var r = Router()
        for (method, template) in [
            (HTTPMethod.GET, "/s3/multipart/{uploadId}/batch"), (.POST, "/s3/multipart/{uploadId}/complete"),
            (.GET, "/s3/multipart/{uploadId}/{partNumber}"), (.GET, "/s3/multipart/{uploadId}"),
            (.GET, "/s3/params"), (.GET, "/a/{x}"), (.GET, "/a/{x}/{y}/{z}"), (.GET, "/healthz"),
        ] {
            r.add(Route(method, template) { _ in .respond(Response(status: 200)) })
        }
        return r
    }

    func found(_ r: Router, _ path: String, _ method: HTTPMethod = .GET) -> (String, [String: String])? {
        guard case .found(let route, let params) = r.match(method: method, path: path) else { return nil }
        return (route.template, Dictionary(uniqueKeysWithValues: params.map { ($0.name, $0.value) }))
    }

    @Test func templatesByCountAndLiterals() throws {
        let r = router()
        let part = try #require(found(r, "/s3/multipart/2~abc_-/17"))
        #expect(part.0 == "/s3/multipart/{uploadId}/{partNumber}")
        #expect(part.1 == ["uploadId": "2~abc_-", "partNumber": "17"])
        #expect(found(r, "/s3/multipart/u/batch")?.0 == "/s3/multipart/{uploadId}/batch")
        #expect(found(r, "/s3/multipart/u/complete", .POST)?.0 == "/s3/multipart/{uploadId}/complete")
        #expect(found(r, "/s3/multipart/u")?.1 == ["uploadId": "u"])
        #expect(found(r, "/a/1/2/3")?.1 == ["x": "1", "y": "2", "z": "3"])
        #expect(found(r, "/s3/params")?.0 == "/s3/params")
        #expect(found(r, "/healthz")?.0 == "/healthz")
        for path in [
            "/s3/multipart", "/s3/multipart/", "/s3/multipart//1", "/s3/multipart/u/", "/s3/multipart/u/1/x",
            "/s3/multipartx/u/1", "/s3/Multipart/u/1", "/s3x/multipart/u", "s3/multipart/u/1", "", "/",
            "/a", "/a/", "/a/1/2", "/healthz/", "/healthzz", "/s3/param",
        ] {
            if case .notFound = r.match(method: .GET, path: path) {} else { Issue.record("\(path) should be 404") }
        }
        // The complete template answers only POST: a GET names it (405), it does not fall to {partNumber}.
        if case .methodNotAllowed(let allow) = r.match(method: .GET, path: "/s3/multipart/u/complete") {
            #expect(allow == ["POST"])
        } else {
            Issue.record("GET …/complete should be 405")
        }
    }

    @Test func parametersAreDecodedOrPassTheTemplate() throws {
        let r = router()
        #expect(found(r, "/s3/multipart/a%2Fb%20c/1")?.1["uploadId"] == "a/b c")
        #expect(found(r, "/s3/multipart/%E2%82%AC/1")?.1["uploadId"] == "€")
        #expect(found(r, "/s3/multipart/plus+sign/1")?.1["uploadId"] == "plus+sign", "+ is no space in a path")
        #expect(found(r, "/s3/multipart/caf\u{E9}/1")?.1["uploadId"] == "caf\u{E9}", "raw UTF-8 is kept")
        // A bad escape or invalid UTF-8 after decoding: no template takes the path.
        for path in ["/s3/multipart/%zz/1", "/s3/multipart/%ff/1", "/s3/multipart/%4/1", "/s3/multipart/u/%"] {
            if case .notFound = r.match(method: .GET, path: path) {} else { Issue.record("\(path) should be 404") }
        }
    }

    @Test func aTemplateWhoseParameterDoesNotDecodeLetsALaterOneTry() throws {
        var r = Router()
        r.add(Route(.GET, "/x/{a}") { _ in .respond(Response(status: 200)) })
        r.add(Route(.GET, "/{b}/%zz") { _ in .respond(Response(status: 201)) })
        #expect(found(r, "/x/%zz")?.0 == "/{b}/%zz")
        #expect(found(r, "/x/ok")?.0 == "/x/{a}")
    }

    @Test func staticRoutesOfManyLengths() {
        var r = Router()
        for n in 1...40 {
            r.add(Route(.GET, "/" + String(repeating: "s", count: n)) { _ in .respond(Response(status: 200)) })
        }
        for n in 1...40 {
            guard case .found(let route, _) = r.match(method: .GET, path: "/" + String(repeating: "s", count: n)) else {
                Issue.record("length \(n) not found")
                continue
            }
            #expect(route.template.utf8.count == n + 1)
        }
        for path in ["/" + String(repeating: "s", count: 41), "/" + String(repeating: "s", count: 200), "/t"] {
            if case .notFound = r.match(method: .GET, path: path) {
            } else {
                Issue.record("\(path.prefix(20)) should be 404")
            }
        }
    }

    @Test func theWordAtATimeSlashScanAgreesWithAPlainOne() {
        // Bytes next to `/` (0x2F) in value, and bytes with the high bit set, where a word trick errs first.
        let alphabet: [UInt8] = [0x2E, 0x2F, 0x30, 0x00, 0xFF, 0xAF, 0x2F ^ 0x80, 0x61, 0x01]
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            let count = Int.random(in: 0...40, using: &rng)
            let bytes = (0..<count).map { _ in alphabet.randomElement(using: &rng)! }
            bytes.withUnsafeBufferPointer { buffer in
                for from in 0...count {
                    let plain = (from..<count).first { buffer[$0] == 0x2F } ?? count
                    #expect(Router.nextSlash(buffer, from: from) == plain, "\(bytes) from \(from)")
                }
            }
        }
    }
}
