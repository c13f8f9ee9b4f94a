import HTTP1
import HTTPServer
import Synchronization
import System
import TestSupport

/// Carries HTTP/1.1 requests to a `Router` in memory, the way the server's event loop carries them off
/// a socket, with the server's own pieces: the bytes through `RequestParser`, the head through
/// `RequestPlan.decide` (404, 405 with `Allow`, 413, 501, and `100 Continue`), the body by its length or
/// through `ChunkedDecoder`, the route's handler, and every form of its answer (`.respond`; `.blocking`
/// and `.blockingDeferred` on a `WorkerPool` bounded as the server's, 503 `SERVER_BUSY` when its queue
/// is full, or inline on the caller; `.deferred` through a `Responder`, 500 when one is let go
/// unanswered), written by `ResponseWriter` with `Date`, `Content-Length`, `X-Request-Id` and
/// `Connection: close` as the server writes them. The server's own errors take its options' error body
/// or the route's renderer.
///
/// The caller awaits answers that come later (a worker's, a commit's) on a continuation: nothing sleeps
/// or polls, and no cooperative thread is held while a worker or the intent writer works. What is not
/// carried: sockets, time-outs of the connection, pipelining across reads, TLS, the access log (those
/// are the event loop's, tested on live sockets in HTTPServerTests and on the binary in AppTests).
public final class InMemoryClient: HTTPTarget, Sendable {
    /// Where `.blocking` and `.blockingDeferred` work runs.
    public enum Blocking: Sendable {
        /// On this pool, refused with 503 `SERVER_BUSY` when its queue is full (as the server's pool).
        case pool(WorkerPool)
        /// On the caller, at once (for a test that wants the work done before `send` returns).
        case inline
    }

    /// A request the input holds only part of (the real server would wait for the rest).
    public struct Incomplete: Error, CustomStringConvertible {
        /// What is missing.
        public let description: String
    }

    private let router: Router
    private let options: ServerOptions
    private let metrics: ServerMetrics?
    private let blocking: Blocking
    /// How long an answer may take before `send` gives up (a handler that never answers).
    private let answerTimeout: Duration
    /// Requests carried so far: the number in generated request ids and the peer's port.
    private let counter = Atomic<Int>(0)

    /// A client of `router` with the server's `options` (its parser limits and error body); answered
    /// requests are counted in `metrics` (shard 0) when given.
    public init(
        router: Router, options: ServerOptions, metrics: ServerMetrics? = nil, blocking: Blocking,
        answerTimeout: Duration = .seconds(60)
    ) {
        self.router = router
        self.options = options
        self.metrics = metrics
        self.blocking = blocking
        self.answerTimeout = answerTimeout
    }

    /// Sends `request` as a connection of its own (from 127.0.0.1) and returns the first final response.
    public func exchange(_ request: [UInt8]) async throws -> WireResponse {
        let bytes = try await send(request)
        guard let first = WireResponse.all(in: bytes, isHead: [WireResponse.isHeadRequest(request)]).first else {
            throw Incomplete(description: "no response in \(bytes.count) bytes")
        }
        return first
    }

    /// Carries `input` as the bytes one connection sends, request after request (pipelined ones in
    /// order), until the input ends or an answer closes the connection; returns every byte the server
    /// would have written back (interim `100 Continue` answers included). Throws `Incomplete` when the
    /// input ends inside a request.
    public func send(_ input: [UInt8], peer: String? = nil) async throws -> [UInt8] {
        let connection = counter.add(1, ordering: .relaxed).newValue
        let peer = peer ?? "127.0.0.1:\(40_000 + connection % 20_000)"
        var output: [UInt8] = []
        var offset = 0
        while offset < input.count {
            let rest = input[offset...]
            let start = MonotonicClock.nanoseconds()
            switch RequestParser.parseHead(rest, limits: options.parserLimits) {
            case .incomplete:
                throw Incomplete(description: "the input ends inside a request head")
            case .failure(let error):
                let renderer =
                    router.hasErrorRenderers
                    ? rest.withUnsafeBytes { Router.requestLinePath($0) }.flatMap(router.errorRenderer) : nil
                let response = ServerError.malformed(error).response(renderer: renderer, errorBody: options.errorBody)
                write(response, requestId: nextRequestId(), close: true, omitBody: false, into: &output)
                record(route: "<invalid>", method: "-", status: response.status, since: start)
                return output
            case .complete(let head, let used):
                offset += used
                let requestId = requestId(for: head)
                let response: Response
                let routeName: String
                var close = !head.keepAlive
                switch RequestPlan.decide(for: head, router: router) {
                case .refuse(let error, let renderer, let name, let mustClose):
                    response = error.response(renderer: renderer, errorBody: options.errorBody)
                    routeName = name
                    close = close || mustClose
                case .run(let route, let parameters):
                    routeName = route.template
                    response = try await answer(
                        Request(head: head, body: [], pathParameters: parameters, requestId: requestId, peer: peer),
                        route: route)
                case .readBody(let route, let parameters, let declared, let chunked, let sendContinue):
                    routeName = route.template
                    if sendContinue { ResponseWriter.appendInterim(status: 100, into: &output) }
                    switch try body(of: route, input[offset...], declared: declared, chunked: chunked) {
                    case .read(let body, let used):
                        offset += used
                        response = try await answer(
                            Request(
                                head: head, body: body, pathParameters: parameters, requestId: requestId, peer: peer),
                            route: route)
                    case .refused(let error):
                        response = error.response(renderer: route.errorRenderer, errorBody: options.errorBody)
                        close = true
                    }
                }
                write(response, requestId: requestId, close: close, omitBody: head.method == .HEAD, into: &output)
                record(route: routeName, method: head.methodName, status: response.status, since: start)
                if close { return output }
            }
        }
        return output
    }

    /// What reading a body came to.
    private enum BodyRead {
        /// The body, and the input bytes it took.
        case read([UInt8], used: Int)
        /// Its framing is malformed (a chunked body's): answered with this error, and the connection closes.
        case refused(ServerError)
    }

    /// The body at the start of `input`: `declared` bytes, or chunks up to the route's limit.
    private func body(of route: Route, _ input: ArraySlice<UInt8>, declared: Int, chunked: Bool) throws -> BodyRead {
        guard chunked else {
            guard input.count >= declared else {
                throw Incomplete(description: "the input holds \(input.count) of the body's \(declared) bytes")
            }
            return .read(Array(input.prefix(declared)), used: declared)
        }
        var decoder = ChunkedDecoder(maxBodyBytes: route.maxBodyBytes, limits: options.parserLimits)
        var body: [UInt8] = []
        switch decoder.decode(input, into: &body) {
        case .complete(let used): return .read(body, used: used)
        case .incomplete: throw Incomplete(description: "the input ends inside a chunked body")
        case .failure(let error): return .refused(.malformed(error))
        }
    }

    /// The answer of `route`'s handler to `request`, whatever form it takes, awaited when it comes later.
    private func answer(_ request: Request, route: Route) async throws -> Response {
        let busy = { ServerError.busy.response(renderer: route.errorRenderer, errorBody: self.options.errorBody) }
        switch route.handler(request) {
        case .respond(let response):
            return response
        case .blocking(let work):
            guard case .pool(let pool) = blocking else { return work() }
            return try await awaitAnswer(route) { answer in
                if !pool.trySubmit({ answer.give(work()) }) { answer.give(busy()) }
            }
        case .deferred(let start):
            return try await awaitAnswer(route) { answer in start(answer.responder) }
        case .blockingDeferred(let start):
            return try await awaitAnswer(route) { answer in
                guard case .pool(let pool) = blocking else { return start(answer.responder) }
                // The responder is made on the worker, as the server does: a refused job leaves none.
                if !pool.trySubmit({ start(answer.responder) }) { answer.give(busy()) }
            }
        }
    }

    /// Runs `begin` with a `PendingAnswer` and awaits the first response given to it, or throws when none
    /// comes within `answerTimeout`.
    private func awaitAnswer(_ route: Route, _ begin: (PendingAnswer) -> Void) async throws -> Response {
        let renderer = route.errorRenderer
        let errorBody = options.errorBody
        let timeout = answerTimeout
        var timer: Task<Void, Never>?
        let response = await withCheckedContinuation { (continuation: CheckedContinuation<Response?, Never>) in
            let answer = PendingAnswer(continuation) {
                ServerError.responderDropped.response(renderer: renderer, errorBody: errorBody)
            }
            timer = Task {
                try? await Task.sleep(for: timeout)
                answer.giveUp()
            }
            begin(answer)
        }
        timer?.cancel()
        guard let response else {
            throw Incomplete(
                description: "\(route.method.name) \(route.template) gave no answer within \(answerTimeout)")
        }
        return response
    }

    /// Appends `response` as the server writes it.
    private func write(_ response: Response, requestId: String, close: Bool, omitBody: Bool, into out: inout [UInt8]) {
        let date = Array("Date: \(IMFFixdate.string(epochSeconds: WallClock.now().seconds))\r\n".utf8)
        ResponseWriter.appendResponse(
            status: response.status, dateLine: date, headers: response.headers, requestId: requestId, close: close,
            body: response.body, omitBody: omitBody, into: &out)
    }

    /// Counts the answer as the server's loop does.
    private func record(route: String, method: String, status: Int, since start: UInt64) {
        let micros = Int64((MonotonicClock.nanoseconds() &- start) / 1000)
        metrics?.record(shard: 0, route: route, method: method, status: status, micros: micros)
    }

    /// The client's well-formed `X-Request-Id`, else a new one.
    private func requestId(for head: RequestHead) -> String {
        if let given = head.headers.first("X-Request-Id"), RequestIdentifier.isWellFormed(given) { return given }
        return nextRequestId()
    }

    /// `memory-<n>`.
    private func nextRequestId() -> String { "memory-\(counter.add(1, ordering: .relaxed).newValue)" }
}

/// One answer awaited by the client: given once, by a worker, a `Responder`, or the time-out.
final class PendingAnswer: Sendable {
    private let continuation: Mutex<CheckedContinuation<Response?, Never>?>
    private let dropped: @Sendable () -> Response

    /// An answer resuming `continuation`; a responder let go unanswered gives `dropped()`.
    init(_ continuation: CheckedContinuation<Response?, Never>, dropped: @escaping @Sendable () -> Response) {
        self.continuation = Mutex(continuation)
        self.dropped = dropped
    }

    /// A new responder whose answer (or, let go unanswered, whose 500) is this answer.
    var responder: Responder {
        Responder(dropped: dropped) { [self] response in give(response) }
    }

    /// Gives `response`, unless an answer was given already.
    func give(_ response: Response) { continuation.withLock { $0.take() }?.resume(returning: response) }

    /// Ends the wait without an answer, unless one was given already.
    func giveUp() { continuation.withLock { $0.take() }?.resume(returning: nil) }
}
