import HTTP1
import Testing

@testable import HTTPServer

/// The loop's decisions about a parsed head, without a socket: route match, body limit, 404/405/413/501,
/// the error shape, and run now or read the body first.
@Suite struct RequestPlanTests {
    /// A router with a native route, a body route and a route with its own error shape.
    static let router: Router = {
        var r = Router()
        r.add(Route(.GET, "/a") { _ in .respond(Response(status: 200)) })
        r.add(Route(.POST, "/body", maxBodyBytes: 10) { _ in .respond(Response(status: 200)) })
        r.add(
            Route(
                .GET, "/shaped/{id}",
                errorRenderer: { status, code, _ in Response(status: status, body: Array(code.utf8)) }
            ) { _ in .respond(Response(status: 200)) })
        return r
    }()

    /// The head of `text` (a whole request head).
    static func head(_ text: String) throws -> RequestHead {
        let result = RequestParser.parseHead(Array(text.utf8))
        guard case .complete(let head, _) = result else { throw PlanTestError.unparsed(text) }
        return head
    }

    /// A head that did not parse.
    enum PlanTestError: Error { case unparsed(String) }

    /// The plan of `text`.
    static func plan(_ text: String) throws -> RequestPlan { RequestPlan.decide(for: try head(text), router: router) }

    @Test func aRouteWithoutABodyRunsAtOnce() throws {
        guard case .run(let route, let parameters) = try Self.plan("GET /a HTTP/1.1\r\nHost: x\r\n\r\n") else {
            Issue.record("expected run")
            return
        }
        #expect(route.template == "/a")
        #expect(parameters.isEmpty)
        guard case .run(_, let p) = try Self.plan("HEAD /shaped/k%41 HTTP/1.1\r\nHost: x\r\n\r\n") else {
            Issue.record("HEAD runs the GET route")
            return
        }
        #expect(p.map(\.value) == ["kA"])
    }

    @Test func aBodyIsReadFirstWithinTheLimit() throws {
        guard
            case .readBody(let route, _, let declared, let chunked, let sendContinue) = try Self.plan(
                "POST /body HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\nExpect: 100-continue\r\n\r\n")
        else {
            Issue.record("expected readBody")
            return
        }
        #expect(route.template == "/body" && declared == 10 && !chunked && sendContinue)
        guard
            case .readBody(_, _, 0, true, false) = try Self.plan(
                "POST /body HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        else {
            Issue.record("a chunked body is read with the decoder")
            return
        }
    }

    /// Each refusal: its error, shape, route name and whether the connection closes after it.
    @Test(arguments: [
        ("GET /nope HTTP/1.1\r\nHost: x\r\n\r\n", ServerError.noRoute, "<unmatched>", false, false),
        ("POST /nope HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\n", .noRoute, "<unmatched>", true, false),
        (
            "DELETE /a HTTP/1.1\r\nHost: x\r\n\r\n", .methodNotAllowed(allow: ["GET", "HEAD"]), "<unmatched>", false,
            false
        ),
        ("POST /body HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\n", .payloadTooLarge, "/body", true, false),
        ("BREW /a HTTP/1.1\r\nHost: x\r\n\r\n", .methodNotImplemented, "<unmatched>", true, false),
        (
            "POST /shaped/1 HTTP/1.1\r\nHost: x\r\n\r\n", .methodNotAllowed(allow: ["GET", "HEAD"]), "<unmatched>",
            false, true
        ),
        ("GET /shaped/1/2 HTTP/1.1\r\nHost: x\r\n\r\n", .noRoute, "<unmatched>", false, false),
    ])
    func refusals(request: String, error: ServerError, routeName: String, closes: Bool, shaped: Bool) throws {
        guard case .refuse(let got, let renderer, let name, let mustClose) = try Self.plan(request) else {
            Issue.record("expected a refusal of \(request)")
            return
        }
        #expect(got == error)
        #expect(name == routeName)
        #expect(mustClose == closes)
        #expect((renderer != nil) == shaped)
    }

    /// One place renders the server's own answers: the route's shape or the server's body, plus the
    /// headers the answer needs whatever the shape.
    @Test func answersTakeTheRouteShapeAndKeepTheirHeaders() {
        let plain: ErrorBodyRenderer = { _, code, message in ("text/plain", Array("\(code): \(message)".utf8)) }
        let busy = ServerError.busy.response(renderer: nil, errorBody: plain)
        #expect(busy.status == 503)
        #expect(String(decoding: busy.body, as: UTF8.self) == "SERVER_BUSY: the server is busy; retry later")
        #expect(busy.headers.contains { $0 == ("Retry-After", "1") })
        let shaped = ServerError.methodNotAllowed(allow: ["GET"]).response(
            renderer: { _, code, _ in Response(status: 400, body: Array(code.utf8)) }, errorBody: plain)
        #expect(shaped.status == 400)
        #expect(shaped.body == Array("METHOD_NOT_ALLOWED".utf8))
        #expect(shaped.headers.contains { $0 == ("Allow", "GET") })
        #expect(ServerError.malformed(.uriTooLong).code == "URI_TOO_LONG")
        #expect(ServerError.malformed(.badRequest("bad")).message == "bad")
        #expect(ServerError.bodyTimeout.status == 408)
    }
}
