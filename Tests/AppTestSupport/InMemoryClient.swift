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
/// or the route's renderer. The input is all the client sends: one that ends inside a body is answered
/// as the server answers a body that stops coming (408, at once here), one that ends inside a head gets
/// no answer (the server closes at the header deadline).
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

    /// A request that got no answer: a handler that never gave one, or an input without a whole request.
    public struct NoAnswer: Error, CustomStringConvertible {
        /// What was missing.
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
        answerTimeout: Duration = .seconds(600)
    ) {
        self.router = router
        self.options = options
        self.metrics = metrics
        self.blocking = blocking
        self.answerTimeout = answerTimeout
    }

    /// Sends `request` as a connection of its own (from 127.0.0.1) and returns the first final response.
    public func exchange(_ request: [UInt8]) async throws -> WireResponse { try await timedExchange(request).response }

    /// A response, and how long the application took to give it: from the request's bytes to the
    /// handler's answer (a worker's or a `Responder`'s), not counting how long the awaiting test took to
    /// run again, so a bound on the answer's time holds on a loaded machine as it holds for the server's.
    public struct Timed: Sendable {
        /// The response.
        public let response: WireResponse
        /// From the start of the request to its answer.
        public let answeredAfter: Duration
    }

    /// `exchange`, with the time the application took to answer.
    public func timedExchange(_ request: [UInt8]) async throws -> Timed {
        let (bytes, delays) = try await carry(request, peer: nil)
        guard let first = WireResponse.all(in: bytes, isHead: [WireResponse.isHeadRequest(request)]).first,
            let delay = delays.first
        else {
            throw NoAnswer(description: "no response in \(bytes.count) bytes")
        }
        return Timed(response: first, answeredAfter: .nanoseconds(Int64(delay)))
    }

    /// Carries `input` as the bytes one connection sends, request after request (pipelined ones in
    /// order), until the input ends or an answer closes the connection; returns every byte the server
    /// would have written back (interim `100 Continue` answers included). Throws `NoAnswer` when a
    /// handler gives no answer within the time-out.
    public func send(_ input: [UInt8], peer: String? = nil) async throws -> [UInt8] {
        try await carry(input, peer: peer).output
    }

    /// `send`, with each answer's delay in nanoseconds (from the start of its request to its answer).
    private func carry(_ input: [UInt8], peer: String?) async throws -> (output: [UInt8], delays: [UInt64]) {
        let connection = counter.add(1, ordering: .relaxed).newValue
        let peer = peer ?? "127.0.0.1:\(40_000 + connection % 20_000)"
        var output: [UInt8] = []
        var delays: [UInt64] = []
        var offset = 0
        while offset < input.count {
            let rest = input[offset...]
            let start = MonotonicClock.nanoseconds()
            switch RequestParser.parseHead(rest, limits: options.parserLimits) {
            case .incomplete:
                // Nothing more comes: the server closes at the header deadline without an answer.
                return (output, delays)
            case .failure(let error):
                let renderer =
                    router.hasErrorRenderers
                    ? rest.withUnsafeBytes { Router.requestLinePath($0) }.flatMap(router.errorRenderer) : nil
                let response = ServerError.malformed(error).response(renderer: renderer, errorBody: options.errorBody)
                write(response, requestId: nextRequestId(), close: true, omitBody: false, into: &output)
                let answered = MonotonicClock.nanoseconds()
                record(route: "<invalid>", method: "-", status: response.status, micros: 0)
                return (output, delays + [answered &- start])
            case .complete(let head, let used):
                offset += used
                let requestId = requestId(for: head)
                var response: Response
                var answered = start
                let routeName: String
                var close = !head.keepAlive
                switch RequestPlan.decide(for: head, router: router) {
                case .refuse(let error, let renderer, let name, let mustClose):
                    response = error.response(renderer: renderer, errorBody: options.errorBody)
                    answered = MonotonicClock.nanoseconds()
                    routeName = name
                    close = close || mustClose
                case .run(let route, let parameters):
                    routeName = route.template
                    (response, answered) = try await answer(
                        Request(head: head, body: [], pathParameters: parameters, requestId: requestId, peer: peer),
                        route: route)
                case .readBody(let route, let parameters, let declared, let chunked, let sendContinue):
                    routeName = route.template
                    if sendContinue { ResponseWriter.appendInterim(status: 100, into: &output) }
                    switch body(of: route, input[offset...], declared: declared, chunked: chunked) {
                    case .read(let body, let used):
                        offset += used
                        (response, answered) = try await answer(
                            Request(
                                head: head, body: body, pathParameters: parameters, requestId: requestId, peer: peer),
                            route: route)
                    case .refused(let error):
                        // A malformed chunked body, or one that stops coming (the input ends inside it:
                        // the server answers 408 at the body deadline); either way the connection closes.
                        response = error.response(renderer: route.errorRenderer, errorBody: options.errorBody)
                        answered = MonotonicClock.nanoseconds()
                        close = true
                    }
                }
                write(response, requestId: requestId, close: close, omitBody: head.method == .HEAD, into: &output)
                delays.append(answered &- start)
                record(
                    route: routeName, method: head.methodName, status: response.status,
                    micros: Int64((answered &- start) / 1000))
                if close { return (output, delays) }
            }
        }
        return (output, delays)
    }

    /// What reading a body came to.
    private enum BodyRead {
        /// The body, and the input bytes it took.
        case read([UInt8], used: Int)
        /// Answered with this error (a chunked body's framing, or the body deadline), and the connection closes.
        case refused(ServerError)
    }

    /// The body at the start of `input`: `declared` bytes, or chunks up to the route's limit; refused
    /// when its framing is malformed, or timed out when the input ends before it does.
    private func body(of route: Route, _ input: ArraySlice<UInt8>, declared: Int, chunked: Bool) -> BodyRead {
        guard chunked else {
            guard input.count >= declared else { return .refused(.bodyTimeout) }
            return .read(Array(input.prefix(declared)), used: declared)
        }
        var decoder = ChunkedDecoder(maxBodyBytes: route.maxBodyBytes, limits: options.parserLimits)
        var body: [UInt8] = []
        switch decoder.decode(input, into: &body) {
        case .complete(let used): return .read(body, used: used)
        case .incomplete: return .refused(.bodyTimeout)
        case .failure(let error): return .refused(.malformed(error))
        }
    }

    /// The answer of `route`'s handler to `request`, whatever form it takes, awaited when it comes later;
    /// with the monotonic time it was given.
    private func answer(_ request: Request, route: Route) async throws -> (Response, UInt64) {
        let busy = { ServerError.busy.response(renderer: route.errorRenderer, errorBody: self.options.errorBody) }
        switch route.handler(request) {
        case .respond(let response):
            return (response, MonotonicClock.nanoseconds())
        case .blocking(let work):
            guard case .pool(let pool) = blocking else { return (work(), MonotonicClock.nanoseconds()) }
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

    /// Runs `begin` with a `PendingAnswer` and awaits the first response given to it (and the time it
    /// was given), or throws when none comes within `answerTimeout`.
    private func awaitAnswer(_ route: Route, _ begin: (PendingAnswer) -> Void) async throws -> (Response, UInt64) {
        let renderer = route.errorRenderer
        let errorBody = options.errorBody
        let timeout = answerTimeout
        var timer: Task<Void, Never>?
        let answer = await withCheckedContinuation { (continuation: CheckedContinuation<(Response, UInt64)?, Never>) in
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
        guard let answer else {
            throw NoAnswer(
                description: "\(route.method.name) \(route.template) gave no answer within \(answerTimeout)")
        }
        return answer
    }

    /// Appends `response` as the server writes it.
    private func write(_ response: Response, requestId: String, close: Bool, omitBody: Bool, into out: inout [UInt8]) {
        let date = Array("Date: \(IMFFixdate.string(epochSeconds: WallClock.now().seconds))\r\n".utf8)
        ResponseWriter.appendResponse(
            status: response.status, dateLine: date, headers: response.headers, requestId: requestId, close: close,
            body: response.body, omitBody: omitBody, into: &out)
    }

    /// Counts the answer as the server's loop does.
    private func record(route: String, method: String, status: Int, micros: Int64) {
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
    private let continuation: Mutex<CheckedContinuation<(Response, UInt64)?, Never>?>
    private let dropped: @Sendable () -> Response

    /// An answer resuming `continuation` with the response and the monotonic time it was given; a
    /// responder let go unanswered gives `dropped()`.
    init(
        _ continuation: CheckedContinuation<(Response, UInt64)?, Never>, dropped: @escaping @Sendable () -> Response
    ) {
        self.continuation = Mutex(continuation)
        self.dropped = dropped
    }

    /// A new responder whose answer (or, let go unanswered, whose 500) is this answer.
    var responder: Responder {
        Responder(dropped: dropped) { [self] response in give(response) }
    }

    /// Gives `response`, unless an answer was given already.
    func give(_ response: Response) {
        let at = MonotonicClock.nanoseconds()
        continuation.withLock { $0.take() }?.resume(returning: (response, at))
    }

    /// Ends the wait without an answer, unless one was given already.
    func giveUp() { continuation.withLock { $0.take() }?.resume(returning: nil) }
}
