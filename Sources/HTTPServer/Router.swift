import HTTP1

/// What a handler gives back: an answer now (computed on the event loop), or work for a worker thread.
public enum HandlerResult: Sendable {
    /// The response is ready; it is written at once from the event loop.
    case respond(Response)
    /// Blocking work (a database commit, a call to storage): run on the worker pool; its response is
    /// posted back to the event loop that owns the connection.
    case blocking(@Sendable () -> Response)
}

/// A request handler. It runs on an event-loop thread and must never block.
public typealias Handler = @Sendable (Request) -> HandlerResult

/// Renders the server's own error answer (413, 408, 405, a 400 of the body's framing, …) on a route
/// that speaks another shape than `ServerOptions.errorBody`: given the status, the server's code
/// (`PAYLOAD_TOO_LARGE`, `METHOD_NOT_ALLOWED`, …) and message, the whole response (its status may
/// differ; the server adds `Allow` to a 405 and its own framing headers).
public typealias ErrorRenderer = @Sendable (_ status: Int, _ code: String, _ message: String) -> Response

/// One route: a method, a path template such as `/images/{id}`, a body limit and a handler.
public struct Route: Sendable {
    /// The method this route answers.
    public let method: HTTPMethod
    /// The template, used as the route's name in logs and metrics.
    public let template: String
    /// The largest request body accepted, in bytes (0: no body allowed beyond an empty one).
    public let maxBodyBytes: Int
    /// The handler.
    public let handler: Handler
    /// The shape of the server's own errors on this route (and, through `Router.errorRenderer(forPath:)`,
    /// on its path: 405, 404 of a bad parameter, 501, a head that does not parse); nil (native routes):
    /// `ServerOptions.errorBody`. Only error answers read it.
    public let errorRenderer: ErrorRenderer?

    /// Creates a route.
    public init(
        _ method: HTTPMethod, _ template: String, maxBodyBytes: Int = 0, errorRenderer: ErrorRenderer? = nil,
        handler: @escaping Handler
    ) {
        self.method = method
        self.template = template
        self.maxBodyBytes = maxBodyBytes
        self.errorRenderer = errorRenderer
        self.handler = handler
    }
}

/// The result of routing a request line.
public enum RouteMatch: Sendable {
    /// A route answers; with the decoded path parameters.
    case found(Route, [(name: String, value: String)])
    /// The path exists but not for this method; with the methods it has (for `Allow`).
    case methodNotAllowed(allow: [String])
    /// No route has this path.
    case notFound
}

/// Routes on (method, path). Static paths are a dictionary lookup; templates with `{param}` segments are
/// matched segment by segment. HEAD is answered by the GET route when no HEAD route exists.
public struct Router: Sendable {
    private struct Template: Sendable {
        let segments: [Segment]
        var routes: [Route]
    }

    private enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    private var staticRoutes: [String: [Route]] = [:]
    private var templates: [Template] = []
    /// Whether any route has an `errorRenderer` (none: error answers never look one up).
    public private(set) var hasErrorRenderers = false

    /// An empty router.
    public init() {}

    /// Adds `route`; a second route for the same method and template replaces the first.
    public mutating func add(_ route: Route) {
        if route.errorRenderer != nil { hasErrorRenderers = true }
        let segs = Router.split(route.template)
        if !segs.contains(where: { if case .parameter = $0 { return true } else { return false } }) {
            var list = staticRoutes[route.template, default: []]
            list.removeAll { $0.method == route.method }
            list.append(route)
            staticRoutes[route.template] = list
            return
        }
        if let i = templates.firstIndex(where: { $0.segments == segs }) {
            templates[i].routes.removeAll { $0.method == route.method }
            templates[i].routes.append(route)
        } else {
            templates.append(Template(segments: segs, routes: [route]))
        }
    }

    /// Finds the route for `method` and `path` (the raw path of the request target).
    public func match(method: HTTPMethod, path: String) -> RouteMatch {
        if let list = staticRoutes[path] {
            return pick(list, method: method, parameters: [])
        }
        if templates.isEmpty { return .notFound }
        let parts = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        for t in templates {
            // A path "/images/abc" splits to ["", "images", "abc"]; templates are split the same way.
            guard parts.count == t.segments.count else { continue }
            var params: [(name: String, value: String)] = []
            var ok = true
            for (seg, part) in zip(t.segments, parts) {
                switch seg {
                case .literal(let lit):
                    if !part.elementsEqual(lit.utf8) { ok = false }
                case .parameter(let name):
                    guard !part.isEmpty, let v = QueryString.percentDecode(Array(part), plusIsSpace: false) else {
                        ok = false
                        break
                    }
                    params.append((name, v))
                }
                if !ok { break }
            }
            if ok { return pick(t.routes, method: method, parameters: params) }
        }
        return .notFound
    }

    /// The error renderer of the routes on `path` (the first route of the path that has one), or nil.
    /// A path with a template's literal segments matches it whatever its parameter segments hold (an
    /// empty or undecodable one, which routing answers 404), so the app's shape covers that 404 too.
    /// Used on error answers only; returns at once when no route has a renderer.
    public func errorRenderer(forPath path: String) -> ErrorRenderer? {
        guard hasErrorRenderers else { return nil }
        if let list = staticRoutes[path] { return list.lazy.compactMap(\.errorRenderer).first }
        let parts = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        for t in templates where parts.count == t.segments.count {
            let fits = zip(t.segments, parts).allSatisfy { seg, part in
                if case .literal(let lit) = seg { return part.elementsEqual(lit.utf8) }
                return true
            }
            if fits, let r = t.routes.lazy.compactMap(\.errorRenderer).first { return r }
        }
        return nil
    }

    /// The path of a request line at the start of `bytes` (`METHOD SP path[?query] SP …`), for an
    /// error answered before the head parsed; nil when the line has no target within `limit` bytes.
    public static func requestLinePath(_ bytes: UnsafeRawBufferPointer, limit: Int = 8192) -> String? {
        let end = min(bytes.count, limit)
        var i = 0
        while i < end && bytes[i] != UInt8(ascii: " ") {
            if bytes[i] == UInt8(ascii: "\r") || bytes[i] == UInt8(ascii: "\n") { return nil }
            i += 1
        }
        i += 1
        let start = i
        guard start < end, bytes[start] == UInt8(ascii: "/") else { return nil }
        while i < end {
            let b = bytes[i]
            if b == UInt8(ascii: "?") || b == UInt8(ascii: " ") || b == UInt8(ascii: "\r") || b == UInt8(ascii: "\n") {
                break
            }
            i += 1
        }
        guard i < end else { return nil }  // cut by the limit or the input: not a whole path
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
    }

    private func pick(_ routes: [Route], method: HTTPMethod, parameters: [(name: String, value: String)])
        -> RouteMatch
    {
        for r in routes where r.method == method { return .found(r, parameters) }
        if method == .HEAD {
            for r in routes where r.method == .GET { return .found(r, parameters) }
        }
        var allow: [String] = []
        for r in routes {
            allow.append(r.method.name)
            if r.method == .GET && !routes.contains(where: { $0.method == .HEAD }) { allow.append("HEAD") }
        }
        return .methodNotAllowed(allow: allow)
    }

    private static func split(_ template: String) -> [Segment] {
        template.split(separator: "/", omittingEmptySubsequences: false).map { s in
            if s.hasPrefix("{") && s.hasSuffix("}") && s.count > 2 {
                return .parameter(String(s.dropFirst().dropLast()))
            }
            return .literal(String(s))
        }
    }
}
