import Config
import HTTPServer
import JSON

/// CORS for the API: the configured origins (exactly) may call it from a browser.
///
/// With no origins (the default) nothing changes: no CORS header is sent and `OPTIONS` stays 405.
/// With origins, every API route answers a request whose `Origin` is allowed with
/// `Access-Control-Allow-Origin: <origin>` and `Vary: Origin` (and `Access-Control-Allow-Credentials`
/// when configured, and `Access-Control-Expose-Headers: Retry-After` so a page can read a 429's delay),
/// and each path gets an `OPTIONS` route for preflights: an allowed origin asking
/// for one of the path's methods and only allowed headers gets 204 with the methods, the headers and
/// `Access-Control-Max-Age`; anything else gets 403 without CORS headers (the browser then refuses).
/// A plain `OPTIONS` without `Origin` gets 204 with `Allow`.
struct CORSPolicy: Sendable {
    let origins: Set<String>
    let allowCredentials: Bool
    let allowedHeaders: Set<String>
    let maxAgeSeconds: Int

    /// The policy of `config`; `devUserHeader` (the dev mode's user header, nil in other modes) is
    /// allowed in preflights besides `cors.allowedHeaders`, so a dev-mode page needs no setting for it.
    init(_ config: CORSConfig, devUserHeader: String? = nil) {
        origins = Set(config.allowedOrigins)
        allowCredentials = config.allowCredentials
        allowedHeaders = Set(config.allowedHeaders + (devUserHeader.map { [$0.lowercased()] } ?? []))
        maxAgeSeconds = config.maxAgeSeconds
    }

    /// Whether any origin is allowed.
    var enabled: Bool { !origins.isEmpty }

    /// `routes` with CORS: each handler wrapped, plus an `OPTIONS` route per path that has none.
    func apply(_ routes: [Route]) -> [Route] {
        guard enabled else { return routes }
        var out = routes.map(wrap)
        var methods: [String: [String]] = [:]
        var order: [String] = []
        for r in routes {
            if methods[r.template] == nil { order.append(r.template) }
            methods[r.template, default: []].append(r.method.name)
        }
        for template in order where !(methods[template] ?? []).contains("OPTIONS") {
            var list = methods[template] ?? []
            if list.contains("GET") && !list.contains("HEAD") { list.append("HEAD") }
            out.append(Route(.OPTIONS, template, handler: preflight(methods: list)))
        }
        return out
    }

    /// The headers an actual (not preflight) answer to `origin` carries, or nil when it is not allowed.
    func answerHeaders(origin: String?) -> [(name: String, value: String)]? {
        guard let origin, origins.contains(origin) else { return nil }
        var h: [(name: String, value: String)] = [("Access-Control-Allow-Origin", origin), ("Vary", "Origin")]
        if allowCredentials { h.append(("Access-Control-Allow-Credentials", "true")) }
        return h
    }

    private func wrap(_ route: Route) -> Route {
        let handler = route.handler
        return Route(
            route.method, route.template, maxBodyBytes: route.maxBodyBytes, errorRenderer: route.errorRenderer
        ) { [self] request in
            guard let allowed = answerHeaders(origin: request.header("Origin")) else { return handler(request) }
            // A 429's or 503's delay, which a page can read only when it is exposed.
            let extra = allowed + [("Access-Control-Expose-Headers", "Retry-After")]
            let result = handler(request)
            if case .respond(var r) = result {  // the usual case: no closure to allocate
                r.headers.append(contentsOf: extra)
                return .respond(r)
            }
            return result.map { response in
                var r = response
                r.headers.append(contentsOf: extra)
                return r
            }
        }
    }

    /// The answer to a preflight the policy refuses: 403 in the shape browsers' upload libraries parse
    /// (`{"error","code"}`, Companion's), without CORS headers.
    static let refusal: Response = {
        var w = JSONWriter(reservingCapacity: 96)
        w.beginObject()
        w.key("error")
        w.string("this cross-origin request is not allowed")
        w.key("code")
        w.string("CORS_REFUSED")
        w.endObject()
        return Response(status: 403, headers: APIError.jsonNoStoreHeaders, body: w.bytes)
    }()

    /// The answer to a preflight for a path with `methods`.
    func preflight(methods: [String]) -> Handler {
        { [self] request in .respond(preflightResponse(request, methods: methods)) }
    }

    func preflightResponse(_ request: Request, methods: [String]) -> Response {
        guard let origin = request.header("Origin") else {
            return Response(status: 204, headers: [("Allow", (methods + ["OPTIONS"]).joined(separator: ", "))])
        }
        let refused = CORSPolicy.refusal
        guard var headers = answerHeaders(origin: origin), let method = request.header("Access-Control-Request-Method"),
            methods.contains(method)
        else { return refused }
        var asked: [String] = []
        if let list = request.header("Access-Control-Request-Headers") {
            for item in list.split(separator: ",") {
                let name = item.trimmingSpaces().lowercased()
                if name.isEmpty { continue }
                guard allowedHeaders.contains(name) else { return refused }
                asked.append(name)
            }
        }
        headers.append(("Access-Control-Allow-Methods", methods.joined(separator: ", ")))
        if !asked.isEmpty { headers.append(("Access-Control-Allow-Headers", asked.joined(separator: ", "))) }
        headers.append(("Access-Control-Max-Age", String(maxAgeSeconds)))
        headers[1] = ("Vary", "Origin, Access-Control-Request-Method, Access-Control-Request-Headers")
        return Response(status: 204, headers: headers)
    }
}
