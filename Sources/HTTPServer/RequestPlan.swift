import HTTP1

/// What the event loop does with a parsed request head, decided as a pure function of the head and the
/// router (no sockets, no clock): refuse it (with which `ServerError`, in which route's error shape,
/// closing or not), run its handler at once, or read its body first. The loop only carries it out
/// (`EventLoop+Requests.swift`); `RequestPlanTests` checks each decision without a connection, and the
/// in-process test client (Tests/AppTestSupport) follows the same plans without a socket.
public enum RequestPlan: Sendable {
    /// Answer `error` in `renderer`'s shape (nil: `ServerOptions.errorBody`), logged under `routeName`;
    /// `mustClose` when the request's framing cannot be trusted past the head.
    case refuse(ServerError, renderer: ErrorRenderer?, routeName: String, mustClose: Bool)
    /// No body: run the route's handler now.
    case run(Route, parameters: [(name: String, value: String)])
    /// Read the body (`declared` bytes, or chunked up to the route's limit), then run the handler;
    /// `sendContinue` answers `Expect: 100-continue` first.
    case readBody(Route, parameters: [(name: String, value: String)], declared: Int, chunked: Bool, sendContinue: Bool)

    /// The route name of answers that matched no route.
    public static let unmatched = "<unmatched>"

    /// The plan for `head` on `router`: 501 for an unknown method (closing: its framing is unknown),
    /// 404 or 405 (closing when a body follows, which is not read), 413 when the declared body is
    /// over the route's limit (closing), else run or read the body.
    public static func decide(for head: borrowing RequestHead, router: Router) -> RequestPlan {
        let hasBody = head.isChunked || (head.contentLength ?? 0) > 0
        guard let method = head.method else {
            return .refuse(
                .methodNotImplemented, renderer: router.errorRenderer(forPath: head.path), routeName: unmatched,
                mustClose: true)
        }
        switch router.match(method: method, path: head.path) {
        case .notFound:
            return .refuse(
                .noRoute, renderer: router.errorRenderer(forPath: head.path), routeName: unmatched, mustClose: hasBody)
        case .methodNotAllowed(let allow):
            return .refuse(
                .methodNotAllowed(allow: allow), renderer: router.errorRenderer(forPath: head.path),
                routeName: unmatched, mustClose: hasBody)
        case .found(let route, let parameters):
            let declared = head.contentLength ?? 0
            if declared > route.maxBodyBytes {
                return .refuse(
                    .payloadTooLarge, renderer: route.errorRenderer, routeName: route.template, mustClose: true)
            }
            if !head.isChunked && declared == 0 { return .run(route, parameters: parameters) }
            return .readBody(
                route, parameters: parameters, declared: declared, chunked: head.isChunked,
                sendContinue: head.expectsContinue && head.versionMinor == 1)
        }
    }
}
