import HTTP1
import HTTPServer
import System
import Testing

@Suite("Router, query strings, dates")
struct RouterTests {
    func router() -> Router {
        var r = Router()
        r.add(Route(.GET, "/images") { _ in .respond(Response(status: 200)) })
        r.add(Route(.POST, "/images") { _ in .respond(Response(status: 201)) })
        r.add(Route(.GET, "/images/{id}") { _ in .respond(Response(status: 200)) })
        r.add(Route(.DELETE, "/images/{id}") { _ in .respond(Response(status: 204)) })
        return r
    }

    @Test("static and templated paths, HEAD via GET, 405 lists the methods, 404 otherwise")
    func matching() {
        let r = router()
        if case .found(let route, let p) = r.match(method: .GET, path: "/images") {
            #expect(route.template == "/images")
            #expect(p.isEmpty)
        } else {
            Issue.record("GET /images not found")
        }
        if case .found(let route, let p) = r.match(method: .DELETE, path: "/images/a%2Fb") {
            #expect(route.template == "/images/{id}")
            #expect(p.first?.value == "a/b")
        } else {
            Issue.record("DELETE /images/{id} not found")
        }
        if case .found(let route, _) = r.match(method: .HEAD, path: "/images/x") {
            #expect(route.method == .GET)
        } else {
            Issue.record("HEAD not routed to GET")
        }
        if case .methodNotAllowed(let allow) = r.match(method: .PUT, path: "/images/x") {
            #expect(allow == ["GET", "HEAD", "DELETE"])
        } else {
            Issue.record("PUT should be 405")
        }
        for p in ["/images/", "/images/x/y", "/imagesx", "/", "/images//"] {
            if case .notFound = r.match(method: .GET, path: p) {} else { Issue.record("\(p) should be 404") }
        }
    }

    @Test("query strings decode percent escapes and plus; malformed ones are nil")
    func query() {
        let items = QueryString.parse("type=PROFILE&ext=jpg&x=a%20b+c&empty=&flag")
        #expect(items?.map { $0.name } == ["type", "ext", "x", "empty", "flag"])
        #expect(items?[2].value == "a b c")
        #expect(items?[3].value == "")
        #expect(QueryString.parse("a=%zz") == nil)
        #expect(QueryString.parse("a=%ff") == nil)  // invalid UTF-8
        #expect(QueryString.parse("a=%e2%82%ac")?.first?.value == "€")
    }

    @Test("metrics render requests, the histogram and gauges in Prometheus format")
    func metrics() throws {
        let s = try TestServerForMetrics()
        defer { s.stop() }
        let text = s.server.metrics.render()
        #expect(text.contains("# TYPE presignd_http_requests_total counter"))
        #expect(text.contains("presignd_open_connections"))
    }

    @Test("a labelled gauge: HELP and TYPE once, a line per sample, label values escaped")
    func labelledMetrics() throws {
        let s = try TestServerForMetrics()
        defer { s.stop() }
        s.server.metrics.register(name: "presignd_test_outcome", help: "By outcome.", label: "outcome") {
            [("ok", 1), ("no_such_bucket", 0), ("a\"b\\c\nd", 2)]
        }
        let text = s.server.metrics.render()
        #expect(
            text.hasSuffix(
                """
                # HELP presignd_test_outcome By outcome.
                # TYPE presignd_test_outcome gauge
                presignd_test_outcome{outcome="ok"} 1
                presignd_test_outcome{outcome="no_such_bucket"} 0
                presignd_test_outcome{outcome="a\\"b\\\\c\\nd"} 2

                """), "\(text)")
    }
}

/// A server with no routes, for the metrics smoke test.
final class TestServerForMetrics: @unchecked Sendable {
    let server: HTTPServer
    init() throws {
        var o = ServerOptions()
        o.port = 0
        o.eventLoops = 1
        o.workerThreads = 1
        o.accessLog = false
        server = try HTTPServer(options: o, router: Router())
        server.start()
    }
    func stop() {
        server.shutdown()
        server.wait()
    }
}

extension RouterTests {
    @Test("OPTIONS is an ordinary method: 405 with Allow until a route answers it (CORS preflights)")
    func optionsRoutes() {
        var r = router()
        guard case .methodNotAllowed(let allow) = r.match(method: .OPTIONS, path: "/images/x") else {
            Issue.record("OPTIONS without a route must be 405")
            return
        }
        #expect(allow == ["GET", "HEAD", "DELETE"])
        r.add(Route(.OPTIONS, "/images/{id}") { _ in .respond(Response(status: 204)) })
        if case .found(let route, let p) = r.match(method: .OPTIONS, path: "/images/x") {
            #expect(route.method == .OPTIONS)
            #expect(p.first?.value == "x")
        } else {
            Issue.record("OPTIONS /images/{id} not found")
        }
        // The first template that matches a path wins: a literal segment must be added before a parameter.
        r.add(Route(.GET, "/u/{id}/batch") { _ in .respond(Response(status: 200)) })
        r.add(Route(.GET, "/u/{id}/{n}") { _ in .respond(Response(status: 200)) })
        if case .found(let route, _) = r.match(method: .GET, path: "/u/a/batch") {
            #expect(route.template == "/u/{id}/batch")
        } else {
            Issue.record("batch not found")
        }
        if case .found(let route, _) = r.match(method: .GET, path: "/u/a/7") {
            #expect(route.template == "/u/{id}/{n}")
        } else {
            Issue.record("part not found")
        }
    }

    @Test("error renderers: found by path (parameters not decoded), only when some route has one")
    func errorRenderers() throws {
        var r = router()
        #expect(!r.hasErrorRenderers)
        #expect(r.errorRenderer(forPath: "/images") == nil)
        let app: ErrorRenderer = { status, code, _ in Response(status: status, body: Array(code.utf8)) }
        r.add(Route(.POST, "/api/q/{id}/active", errorRenderer: app) { _ in .respond(Response(status: 200)) })
        r.add(Route(.PUT, "/v2/me") { _ in .respond(Response(status: 200)) })
        r.add(Route(.GET, "/v2/me", errorRenderer: app) { _ in .respond(Response(status: 200)) })
        #expect(r.hasErrorRenderers)
        for path in ["/api/q/12/active", "/api/q//active", "/api/q/%ZZ/active", "/v2/me"] {
            let render = try #require(r.errorRenderer(forPath: path), "\(path)")
            #expect(render(405, "METHOD_NOT_ALLOWED", "m").body == Array("METHOD_NOT_ALLOWED".utf8))
        }
        for path in ["/images", "/images/x", "/api/q/12/active/x", "/api/q/12", "/v2", "/"] {
            #expect(r.errorRenderer(forPath: path) == nil, "\(path)")
        }
        if case .notFound = r.match(method: .POST, path: "/api/q//active") {} else { Issue.record("empty parameter") }
    }

    @Test("the path of a request line, for a head that does not parse")
    func requestLinePath() {
        func path(_ s: String, limit: Int = 8192) -> String? {
            Array(s.utf8).withUnsafeBytes { Router.requestLinePath($0, limit: limit) }
        }
        #expect(path("POST /api/q/1/active HTTP/1.1\r\nX: y") == "/api/q/1/active")
        #expect(path("GET /v1/storage/presigned-url?type=P&ext=jpeg HTTP/1.1\r\n") == "/v1/storage/presigned-url")
        #expect(path("BREW /a HTTP/1.1\r\n") == "/a")
        #expect(path("GET /a/b") == nil, "cut by the end of the input")
        #expect(path("GET /aaaaaaaa HTTP/1.1\r\n", limit: 8) == nil, "cut by the limit")
        #expect(path("GET http://h/a HTTP/1.1\r\n") == nil)
        #expect(path("GET\r\n/a HTTP/1.1") == nil)
        #expect(path("") == nil)
    }
}
