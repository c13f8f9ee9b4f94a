import HTTP1

/// What a handler gives back: an answer now (computed on the event loop), work for a worker thread, or
/// an answer given later by another thread without a worker.
public enum HandlerResult: Sendable {
    /// The response is ready; it is written at once from the event loop.
    case respond(Response)
    /// Blocking work (a database commit, a call to storage): run on the worker pool; its response is
    /// posted back to the event loop that owns the connection.
    case blocking(@Sendable () -> Response)
    /// The answer comes later from another thread (an intent's commit, say): the loop calls this at
    /// once with the request's `Responder` (it must not block) and serves other connections meanwhile;
    /// this connection's input stays paused until the answer is written. No worker is held.
    case deferred(@Sendable (Responder) -> Void)
    /// Blocking work whose answer may come later still: run on the worker pool with the request's
    /// `Responder`, which it answers before it returns or hands on (to an intent's commit, say), so the
    /// worker is free again while the answer waits. Refused like `.blocking` when the pool's queue is full.
    case blockingDeferred(@Sendable (Responder) -> Void)
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
    /// Whether the route's blocking work is brief (it waits on nothing slow: a read from the records
    /// store, say) and runs on the small pool of `ServerOptions.briefWorkerThreads` instead of the
    /// worker pool.
    public let brief: Bool

    /// Creates a route.
    public init(
        _ method: HTTPMethod, _ template: String, maxBodyBytes: Int = 0, errorRenderer: ErrorRenderer? = nil,
        brief: Bool = false, handler: @escaping Handler
    ) {
        self.method = method
        self.template = template
        self.maxBodyBytes = maxBodyBytes
        self.errorRenderer = errorRenderer
        self.brief = brief
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
///
/// A template is matched over the path's bytes in place: the path's segments are counted once, a
/// template with another count is skipped, the literal segments of the others are compared byte for
/// byte, and only the template that matches has its parameters decoded (a segment without `%` is
/// copied as is: a path is valid UTF-8, so is each of its segments). Nothing is allocated for the
/// templates that do not match, and a path of a length no static route has is not hashed.
public struct Router: Sendable {
    private struct Template: Sendable {
        let segments: [Segment]
        let parameterCount: Int
        var routes: [Route]
    }

    /// A segment of a template: where its text is in `literalBytes`, and whether it is a parameter.
    private struct Piece: Sendable {
        let start: Int
        let count: Int
        let isParameter: Bool
    }

    private enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)

        var isParameter: Bool { if case .parameter = self { true } else { false } }
    }

    private var staticRoutes: [String: [Route]] = [:]
    /// Whether some static route's path has this many bytes, by length.
    private var staticLengths: [Bool] = []
    private var templates: [Template] = []
    /// Whether any route has an `errorRenderer` (none: error answers never look one up).
    public private(set) var hasErrorRenderers = false
    /// Every template's segments, template after template (plain values: matching retains nothing).
    private var pieces: [Piece] = []
    /// Each template's range in `pieces`, by template.
    private var pieceRanges: [Range<Int>] = []
    /// Every template's UTF-8 bytes, where the pieces point.
    private var literalBytes: [UInt8] = []

    /// An empty router.
    public init() {}

    /// Adds `route`; a second route for the same method and template replaces the first.
    public mutating func add(_ route: Route) {
        if route.errorRenderer != nil { hasErrorRenderers = true }
        let segs = Router.split(route.template)
        if !segs.contains(where: \.isParameter) {
            var list = staticRoutes[route.template, default: []]
            list.removeAll { $0.method == route.method }
            list.append(route)
            staticRoutes[route.template] = list
            let length = route.template.utf8.count
            if staticLengths.count <= length {
                staticLengths += Array(repeating: false, count: length + 1 - staticLengths.count)
            }
            staticLengths[length] = true
            return
        }
        if let i = templates.firstIndex(where: { $0.segments == segs }) {
            templates[i].routes.removeAll { $0.method == route.method }
            templates[i].routes.append(route)
            return
        }
        templates.append(
            Template(segments: segs, parameterCount: segs.count(where: \.isParameter), routes: [route]))
        // The same segments as `segs`, split on the same `/`.
        let base = literalBytes.count
        literalBytes += Array(route.template.utf8)
        let first = pieces.count
        var start = base
        while true {
            var end = start
            while end < literalBytes.count && literalBytes[end] != UInt8(ascii: "/") { end += 1 }
            pieces.append(Piece(start: start, count: end - start, isParameter: segs[pieces.count - first].isParameter))
            if end == literalBytes.count { break }
            start = end + 1
        }
        pieceRanges.append(first..<pieces.count)
    }

    /// Finds the route for `method` and `path` (the raw path of the request target).
    public func match(method: HTTPMethod, path: String) -> RouteMatch {
        let length = path.utf8.count
        if length < staticLengths.count && staticLengths[length], let list = staticRoutes[path] {
            return pick(list, method: method, parameters: [])
        }
        if templates.isEmpty { return .notFound }
        var path = path
        return path.withUTF8 { bytes in
            // A path "/images/abc" has the segments "", "images", "abc"; templates are split the same way.
            var segmentCount = 1
            var slash = Router.nextSlash(bytes, from: 0)
            while slash < bytes.count {
                segmentCount += 1
                slash = Router.nextSlash(bytes, from: slash + 1)
            }
            var next = 0
            while let i = firstMatch(from: next, segmentCount: segmentCount, bytes) {
                if let params = Router.parameters(templates[i], bytes) {
                    return pick(templates[i].routes, method: method, parameters: params)
                }
                next = i + 1
            }
            return .notFound
        }
    }

    /// The first template from index `from` on whose literals `path` (of `segmentCount` segments) has.
    private func firstMatch(from: Int, segmentCount: Int, _ path: UnsafeBufferPointer<UInt8>) -> Int? {
        pieceRanges.withUnsafeBufferPointer { ranges in
            pieces.withUnsafeBufferPointer { pieces in
                literalBytes.withUnsafeBufferPointer { literals in
                    var i = from
                    while i < ranges.count {
                        if ranges[i].count == segmentCount
                            && Router.literalsMatch(UnsafeBufferPointer(rebasing: pieces[ranges[i]]), literals, path)
                        {
                            return i
                        }
                        i += 1
                    }
                    return nil
                }
            }
        }
    }

    /// Whether `path`, which has as many segments as `pieces`, has the same literal segments and no
    /// empty parameter.
    private static func literalsMatch(
        _ pieces: UnsafeBufferPointer<Piece>, _ literals: UnsafeBufferPointer<UInt8>, _ path: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        var start = 0
        for piece in pieces {
            let end = nextSlash(path, from: start)
            if piece.isParameter {
                if end == start { return false }
            } else {
                guard end - start == piece.count else { return false }
                var i = 0
                while i < piece.count {
                    if path[start + i] != literals[piece.start + i] { return false }
                    i += 1
                }
            }
            start = end + 1
        }
        return true
    }

    /// The index of the first `/` in `bytes` from `from` on, else `bytes.count`: eight bytes at a time
    /// (a segment is often a long upload ID or UUID), then byte by byte.
    @inline(__always)
    static func nextSlash(_ bytes: UnsafeBufferPointer<UInt8>, from: Int) -> Int {
        let n = bytes.count
        var i = from
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while i + 8 <= n {
                // A zero byte of `word` is a `/` of the path; the lowest flagged byte is the first one.
                let word =
                    UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) ^ 0x2F2F_2F2F_2F2F_2F2F
                let zero = (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080
                if zero != 0 { return i + (zero.trailingZeroBitCount >> 3) }
                i += 8
            }
        }
        while i < n && bytes[i] != UInt8(ascii: "/") { i += 1 }
        return i
    }

    /// The percent-decoded parameters of `path`, whose literals match `t`; nil when one does not decode.
    private static func parameters(_ t: Template, _ path: UnsafeBufferPointer<UInt8>) -> [(
        name: String, value: String
    )]? {
        var params: [(name: String, value: String)] = []
        params.reserveCapacity(t.parameterCount)
        var start = 0
        for segment in t.segments {
            let end = nextSlash(path, from: start)
            if case .parameter(let name) = segment {
                let bytes = UnsafeBufferPointer(rebasing: path[start..<end])
                if bytes.contains(UInt8(ascii: "%")) {
                    guard let v = QueryString.percentDecode(Array(bytes), plusIsSpace: false) else { return nil }
                    params.append((name, v))
                } else {
                    params.append((name, String(decoding: bytes, as: UTF8.self)))
                }
            }
            start = end + 1
        }
        return params
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
