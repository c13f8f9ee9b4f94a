import HTTP1
import System

/// The request cycle of the event loop: parsing the input, carrying out the `RequestPlan` of each
/// head, running handlers (inline, on a worker, or deferred to a `Responder`), and queueing answers.
extension EventLoop {
    /// Runs the request cycle over `input`; returns how many bytes were consumed. Stops at the end of the
    /// input, at a pause (blocking handler, a close), or after `maxPipelinedPerRead` answers.
    func process(_ c: Connection, _ input: UnsafeRawBufferPointer) -> Int {
        var offset = 0
        c.machine.processingStarted()
        while true {
            switch c.machine.state {
            case .awaitingHead:
                switch c.machine.nextHead(hasInput: offset < input.count) {
                case .parse: break
                case .yield:
                    if !c.queuedReady {
                        c.queuedReady = true
                        ready.append(c)
                    }
                    return offset
                default: return offset
                }
                let rest = UnsafeRawBufferPointer(rebasing: input[offset...])
                switch RequestParser.parseHead(rest, limits: options.parserLimits) {
                case .incomplete:
                    return offset
                case .failure(let e):
                    answerParseError(c, e, rest)
                    return input.count
                case .complete(let head, let used):
                    offset += used
                    c.machine.headParsed()
                    beginRequest(c, consume head)
                }
            case .readingBody:
                guard var p = c.pendingBody else { return offset }
                c.pendingBody = nil
                let rest = UnsafeRawBufferPointer(rebasing: input[offset...])
                var complete = false
                if var dec = p.chunked {
                    switch dec.decode(rest, into: &p.body) {
                    case .incomplete(let used):
                        offset += used
                    case .complete(let used):
                        offset += used
                        complete = true
                    case .failure(let e):
                        c.machine.bodyFailed()
                        respond(
                            c, answer(.malformed(e), p.route.errorRenderer), head: p.head, route: p.route.template,
                            requestId: p.requestId, startNanos: p.startNanos, mustClose: true)
                        return input.count
                    }
                    p.chunked = dec
                } else {
                    let take = min(p.remaining, rest.count)
                    if take > 0 { p.body.append(contentsOf: UnsafeRawBufferPointer(rebasing: rest[..<take])) }
                    p.remaining -= take
                    offset += take
                    complete = p.remaining == 0
                }
                if !complete {
                    c.pendingBody = p
                    return offset
                }
                guard c.machine.bodyComplete() == .dispatch else { return offset }
                let request = Request(
                    head: p.head, body: p.body, pathParameters: p.parameters, requestId: p.requestId, peer: c.peer)
                dispatch(c, request, route: p.route, startNanos: p.startNanos)
            case .waitingForHandler, .lingering, .closed:
                return offset
            }
        }
    }

    /// Carries out the `RequestPlan` of a parsed head: answers a refusal at once, or sets up body
    /// reading, or dispatches. The head is consumed (moved into the pending request, not copied).
    private func beginRequest(_ c: Connection, _ head: consuming RequestHead) {
        let start = MonotonicClock.nanoseconds()
        let requestId = requestId(for: head)
        switch RequestPlan.decide(for: head, router: router) {
        case .refuse(let error, let renderer, let routeName, let mustClose):
            respond(
                c, answer(error, renderer), head: head, route: routeName, requestId: requestId, startNanos: start,
                mustClose: mustClose)
        case .run(let route, let parameters):
            // No body: the head moves straight into the request.
            let request = Request(head: head, body: [], pathParameters: parameters, requestId: requestId, peer: c.peer)
            dispatch(c, request, route: route, startNanos: start)
        case .readBody(let route, let parameters, let declared, let chunked, let sendContinue):
            var p = Connection.PendingBody(
                head: head, route: route, parameters: parameters, requestId: requestId, startNanos: start,
                remaining: declared, chunked: nil, body: [])
            if chunked { p.chunked = ChunkedDecoder(maxBodyBytes: route.maxBodyBytes, limits: options.parserLimits) }
            if declared > 0 { p.body.reserveCapacity(declared) }
            c.pendingBody = p
            _ = c.machine.bodyExpected(nowMs: clock.monoMs)  // the timer scan enforces the deadline
            if sendContinue { ResponseWriter.appendInterim(status: 100, into: &c.outbox) }
        }
    }

    /// Runs the handler of a complete request: writes an inline answer, or pauses the connection until
    /// a worker's or a `Responder`'s answer is posted back (`finishAwaited`).
    private func dispatch(_ c: Connection, _ request: Request, route: Route, startNanos: UInt64) {
        switch route.handler(request) {
        case .respond(let response):
            respond(
                c, response, head: request.head, route: route.template, requestId: request.requestId,
                startNanos: startNanos, mustClose: false)
        case .blocking(let work):
            let id = c.id
            // A full worker queue (a dependency is down or slow) is answered at once, never waited for.
            let queued = (route.brief ? briefPool : pool).trySubmit { [self] in
                let response = work()
                self.post(Completion(connectionId: id, response: response))
            }
            guard queued else {
                respond(
                    c, answer(.busy, route.errorRenderer), head: request.head, route: route.template,
                    requestId: request.requestId, startNanos: startNanos, mustClose: false)
                return
            }
            awaitAnswer(c, request, route: route, startNanos: startNanos)
        case .deferred(let start):
            // Answers are handled on this thread, so one given at once cannot arrive before this state is set.
            awaitAnswer(c, request, route: route, startNanos: startNanos)
            start(responder(forConnection: c.id, route: route))
        case .blockingDeferred(let start):
            let id = c.id
            // The responder is made on the worker: a job refused by a full queue (answered at once, as
            // for `.blocking`) leaves no responder whose drop would answer the request a second time.
            let queued = (route.brief ? briefPool : pool).trySubmit { [self] in
                start(self.responder(forConnection: id, route: route))
            }
            guard queued else {
                respond(
                    c, answer(.busy, route.errorRenderer), head: request.head, route: route.template,
                    requestId: request.requestId, startNanos: startNanos, mustClose: false)
                return
            }
            awaitAnswer(c, request, route: route, startNanos: startNanos)
        }
    }

    /// The responder of the request waiting on connection `id`: its answer is posted back to this loop
    /// (from any thread); let go unanswered, it answers 500 in the route's shape.
    private func responder(forConnection id: UInt64, route: Route) -> Responder {
        let renderer = route.errorRenderer
        let errorBody = options.errorBody
        return Responder(dropped: { ServerError.responderDropped.response(renderer: renderer, errorBody: errorBody) }) {
            [self] response in self.post(Completion(connectionId: id, response: response))
        }
    }

    /// Pauses the connection's input until its answer is posted (pipelined answers stay in order).
    private func awaitAnswer(_ c: Connection, _ request: Request, route: Route, startNanos: UInt64) {
        _ = c.machine.handlerBlocked()  // input pauses when the output is flushed
        c.pendingBody = Connection.PendingBody(
            head: request.head, route: route, parameters: [], requestId: request.requestId,
            startNanos: startNanos, remaining: 0, chunked: nil, body: [])
    }

    /// Writes an answer posted back by a worker or a `Responder`; one for a connection that closed
    /// meanwhile (or no longer waits) is dropped.
    func finishAwaited(_ c: Connection, _ response: Response) {
        guard c.machine.handlerFinished() == .dispatch, let p = c.pendingBody else { return }
        c.pendingBody = nil
        respond(
            c, response, head: p.head, route: p.route.template, requestId: p.requestId,
            startNanos: p.startNanos, mustClose: false)
        if !c.machine.closeAfterWrite && !c.inbox.isEmpty { processInbox(c) }
        flush(c)
    }

    /// Answers a head that does not parse (and closes); `input` starts with it, so a request line whose
    /// path is a route's gets that route's error shape.
    private func answerParseError(_ c: Connection, _ e: ParseError, _ input: UnsafeRawBufferPointer) {
        let start = MonotonicClock.nanoseconds()
        let renderer = router.hasErrorRenderers ? Router.requestLinePath(input).flatMap(router.errorRenderer) : nil
        let r = answer(.malformed(e), renderer)
        _ = c.machine.responding(keepAlive: false, mustClose: true, draining: draining)
        writeResponse(c, r, isHead: false, requestId: generateRequestId(), close: true)
        log.record(
            clock: clock, requestId: nil, method: "-", route: "<invalid>", status: r.status, bytes: r.body.count,
            micros: Int64((MonotonicClock.nanoseconds() - start) / 1000), peer: c.peer)
        metrics.record(shard: index, route: "<invalid>", method: "-", status: r.status, micros: 0)
    }

    /// The server's own answer to `error`, in `renderer`'s shape (`ServerError.response`).
    func answer(_ error: ServerError, _ renderer: ErrorRenderer?) -> Response {
        error.response(renderer: renderer, errorBody: options.errorBody)
    }

    /// Queues `response` to the request of `head`, and counts and logs it.
    func respond(
        _ c: Connection, _ response: Response, head: RequestHead, route: String, requestId: String,
        startNanos: UInt64, mustClose: Bool
    ) {
        let closing = c.machine.responding(keepAlive: head.keepAlive, mustClose: mustClose, draining: draining)
        writeResponse(c, response, isHead: head.method == .HEAD, requestId: requestId, close: closing)
        let micros = Int64((MonotonicClock.nanoseconds() &- startNanos) / 1000)
        metrics.record(shard: index, route: route, method: head.methodName, status: response.status, micros: micros)
        log.record(
            clock: clock, requestId: requestId, method: head.methodName, route: route, status: response.status,
            bytes: response.body.count, micros: micros, peer: c.peer, userId: response.userId)
    }

    /// Serialises a response into the connection's outbox (written by `flush`, once per batch).
    private func writeResponse(_ c: Connection, _ r: Response, isHead: Bool, requestId: String, close: Bool) {
        var out = c.outbox
        c.outbox = []
        if c.outOffset > 0 && c.outOffset >= out.count {
            out.removeAll(keepingCapacity: true)
            c.outOffset = 0
        }
        ResponseWriter.appendResponse(
            status: r.status, dateLine: clock.dateHeader, headers: r.headers, requestId: requestId, close: close,
            body: r.body, omitBody: isHead, into: &out)
        c.outbox = out
    }

    /// The client's well-formed `X-Request-Id`, else a new one.
    private func requestId(for head: RequestHead) -> String {
        if let given = head.headers.first("X-Request-Id"), RequestIdentifier.isWellFormed(given) { return given }
        return generateRequestId()
    }

    /// `<prefix>-<counter in hex>`, written straight into the String.
    private func generateRequestId() -> String {
        requestCounter &+= 1
        let counter = requestCounter
        let digits = max(1, (UInt64.bitWidth - counter.leadingZeroBitCount + 3) / 4)
        return requestIdPrefix.withUnsafeBufferPointer { prefix in
            String(unsafeUninitializedCapacity: prefix.count + digits) { out in
                var n = out.initialize(fromContentsOf: prefix)
                for k in stride(from: digits - 1, through: 0, by: -1) {
                    let nibble = UInt8(truncatingIfNeeded: counter >> UInt64(4 * k)) & 0x0f
                    out[n] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
                    n += 1
                }
                return n
            }
        }
    }
}
