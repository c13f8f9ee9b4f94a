import CLinux
import HTTP1
import Logging
import Synchronization
import System

#if canImport(Glibc)
    import Glibc
#endif

/// One event loop: a thread with its own epoll, its own listening socket (SO_REUSEPORT) and the
/// connections it accepted. Nothing here blocks except `epoll_wait`. The loop is the I/O shell of
/// `ConnectionStateMachine`: it reads, parses, routes and writes, and asks the machine what each event
/// means for the connection (TLS: `EventLoop+TLS.swift`).
///
/// Confinement: every mutable field is touched only by the loop's own thread, except `completions`
/// (a mutex) and the wake-up eventfd, through which workers and the server post to the loop.
final class EventLoop: @unchecked Sendable {
    private static let listenerToken: UInt64 = 0
    private static let wakeToken: UInt64 = 1
    static let scratchSize = 65_536
    private static let timerIntervalMs: Int64 = 100

    /// The loop's index (its metrics shard and thread name).
    let index: Int
    private let epoll: Epoll
    private let wakeFd: Int32
    private var listener: Listener?
    private let options: ServerOptions
    private let rules: ConnectionStateMachine.Rules
    private let router: Router
    private let pool: WorkerPool
    private let metrics: ServerMetrics
    /// State shared with the other loops of the server.
    let shared: SharedState
    private let logSink: LogSink
    private var connections: [UInt64: Connection] = [:]
    private var nextId: UInt64 = 2
    /// The loop's read buffer: every read lands here first.
    let scratch: UnsafeMutableRawPointer
    private var ready: [Connection] = []
    /// TLS connections whose session holds input that epoll cannot signal (see `runTLSBuffered`).
    var tlsBuffered: [Connection] = []
    /// Whether new connections get a TLS session (fixed for the server's life).
    private let tlsEnabled: Bool
    private var nextTimerMs: Int64 = 0
    private var draining = false
    private var drainDeadlineMs: Int64 = 0
    private var stopped = false
    /// The loop's cached clock (ticked once per iteration).
    private(set) var clock: LoopClock
    private var log: AccessLog
    private let completions = Mutex<[Completion]>([])
    private var requestCounter: UInt64 = 0
    /// `<random hex><loop index hex>-`: the start of every request id this loop generates.
    private let requestIdPrefix: [UInt8]

    /// A response computed by a worker, to be written by this loop.
    struct Completion: Sendable {
        let connectionId: UInt64
        let response: Response
    }

    /// State shared by all loops of one server.
    final class SharedState: Sendable {
        let openConnections = Atomic<Int>(0)
        let shuttingDown = Atomic<Bool>(false)
        /// The TLS context new connections start from (swapped by `HTTPServer.reloadTLS()`); nil on plain HTTP.
        let tlsContext: Mutex<TLSServerContext?>
        /// TLS handshakes that failed or that the client abandoned.
        let tlsHandshakeFailures = Atomic<Int>(0)

        /// Shared state; `tlsContext` is nil when the server speaks plain HTTP.
        init(tlsContext: TLSServerContext? = nil) {
            self.tlsContext = Mutex(tlsContext)
        }
    }

    init(
        index: Int, listener: Listener, options: ServerOptions, router: Router, pool: WorkerPool,
        metrics: ServerMetrics, shared: SharedState, logSink: LogSink
    ) throws(ServerError) {
        self.index = index
        self.options = options
        rules = ConnectionStateMachine.Rules(options: options)
        self.router = router
        self.pool = pool
        self.metrics = metrics
        self.shared = shared
        self.listener = listener
        self.logSink = logSink
        tlsEnabled = options.tls != nil
        epoll = try Epoll()
        wakeFd = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wakeFd >= 0 else { throw .socket("eventfd", errno) }
        scratch = UnsafeMutableRawPointer.allocate(byteCount: EventLoop.scratchSize, alignment: 16)
        clock = LoopClock()
        log = AccessLog(enabled: options.accessLog, sink: logSink)
        var rnd = SystemRandomNumberGenerator()
        requestIdPrefix = Array(
            (String(UInt32.random(in: 0...UInt32.max, using: &rnd), radix: 16) + String(index, radix: 16) + "-").utf8)
        do {
            try epoll.add(listener.fd, interest: presignd_EPOLLIN(), token: EventLoop.listenerToken)
            try epoll.add(wakeFd, interest: presignd_EPOLLIN(), token: EventLoop.wakeToken)
        } catch {
            Sys.close(wakeFd)
            scratch.deallocate()
            throw error
        }
    }

    deinit {
        Sys.close(wakeFd)
        scratch.deallocate()
    }

    // MARK: - Cross-thread entry points

    /// Posts a worker's response to this loop (any thread).
    func post(_ completion: Completion) {
        completions.withLock { $0.append(completion) }
        wake()
    }

    /// Wakes the loop (any thread).
    func wake() {
        var one: UInt64 = 1
        _ = Glibc.write(wakeFd, &one, 8)
    }

    // MARK: - The loop

    /// Runs until the server stops and every connection is gone (or the drain deadline passes).
    func run() {
        while !stopped {
            let timeout: Int32 = ready.isEmpty && tlsBuffered.isEmpty ? Int32(EventLoop.timerIntervalMs) : 0
            let n = epoll.wait(timeoutMs: timeout)
            clock.tick()
            for i in 0..<n {
                let token = epoll.token(at: i)
                switch token {
                case EventLoop.listenerToken: acceptAll()
                case EventLoop.wakeToken: drainWakeups()
                default:
                    guard let c = connections[token] else { continue }
                    let flags = epoll.flags(at: i)
                    if flags & presignd_EPOLLOUT() != 0 { onWritable(c) }
                    if flags & (presignd_EPOLLIN() | presignd_EPOLLERR() | presignd_EPOLLHUP() | presignd_EPOLLRDHUP())
                        != 0
                    {
                        onReadable(c)
                    }
                }
            }
            if !ready.isEmpty { runReady() }
            if !tlsBuffered.isEmpty { runTLSBuffered() }
            if clock.monoMs >= nextTimerMs {
                nextTimerMs = clock.monoMs + EventLoop.timerIntervalMs
                checkTimers()
            }
            log.flush()
            if draining && (connections.isEmpty || clock.monoMs >= drainDeadlineMs) {
                for c in Array(connections.values) { close(c) }
                stopped = true
            }
        }
        log.flush()
    }

    private func drainWakeups() {
        var v: UInt64 = 0
        _ = Glibc.read(wakeFd, &v, 8)
        let done = completions.withLock { list -> [Completion] in
            let l = list
            list.removeAll(keepingCapacity: true)
            return l
        }
        for item in done {
            guard let c = connections[item.connectionId] else { continue }
            finishBlocking(c, item.response)
        }
        if shared.shuttingDown.load(ordering: .acquiring) && !draining { beginDrain() }
    }

    // MARK: - Accepting

    private func acceptAll() {
        guard let listener else { return }
        for _ in 0..<64 {
            guard let (fd, peer) = Sys.accept(listener.fd) else { return }
            let open = shared.openConnections.load(ordering: .relaxed)
            let idle = open >= options.maxConnections ? oldestIdle() : nil
            switch ConnectionStateMachine.admission(
                open: open, maxConnections: options.maxConnections, canEvict: idle != nil, tls: tlsEnabled)
            {
            case .accept: break
            case .evictIdleThenAccept: if let idle { close(idle) }
            case .refuse:
                Sys.close(fd)
                continue
            case .refuseWith503:
                var out: [UInt8] = []
                ResponseWriter.appendResponse(
                    status: 503, dateLine: clock.dateHeader, headers: [], requestId: nil, close: true, body: [],
                    omitBody: false, into: &out)
                _ = out.withUnsafeBytes { Sys.write(fd, $0.baseAddress!, $0.count) }
                Sys.close(fd)
                continue
            }
            Sys.setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
            var session: TLSServerSession? = nil
            if tlsEnabled {
                guard let context = shared.tlsContext.withLock({ $0 }),
                    let s = TLSServerSession(context: context, fd: fd)
                else {
                    Sys.close(fd)
                    continue
                }
                session = s
            }
            let c = Connection(id: nextId, fd: fd, peer: peer, nowMs: clock.monoMs, rules: rules, tls: session)
            nextId &+= 1
            connections[c.id] = c
            _ = shared.openConnections.wrappingAdd(1, ordering: .relaxed)
            metrics.openConnections.wrappingAdd(1, ordering: .relaxed)
            setInterest(c, presignd_EPOLLIN() | presignd_EPOLLRDHUP())
        }
    }

    /// This loop's longest-idle connection, if one is idle.
    private func oldestIdle() -> Connection? {
        var oldest: Connection?
        for c in connections.values where c.isIdle {
            if oldest == nil || c.machine.lastActiveMs < oldest!.machine.lastActiveMs { oldest = c }
        }
        return oldest
    }

    // MARK: - Reading and processing

    /// The socket is readable (or hung up).
    func onReadable(_ c: Connection) {
        switch c.machine.readable() {
        case .read: break
        case .close:
            close(c)
            return
        default: return
        }
        let r: IOResult
        if let t = c.tls, c.machine.state != .lingering {
            guard let decrypted = readTLS(c, t) else { return }
            r = decrypted
        } else {
            r = Sys.read(c.fd, scratch, EventLoop.scratchSize)
        }
        switch r {
        case .done(let n):
            switch c.machine.bytesRead(n, nowMs: clock.monoMs) {
            case .process: break
            case .close:
                close(c)
                return
            default: return
            }
            if c.inbox.isEmpty {
                let input = UnsafeRawBufferPointer(start: scratch, count: n)
                let used = process(c, input)
                if used < n, c.machine.keepsInput {
                    c.inbox = Array(input[used...])
                    c.machine.partialHeadKept(nowMs: clock.monoMs)
                }
            } else {
                c.inbox.append(contentsOf: UnsafeRawBufferPointer(start: scratch, count: n))
                processInbox(c)
            }
            flush(c)
        case .eof:
            if c.machine.peerEnded(writePending: c.writePending) == .close { close(c) }
        case .wouldBlock:
            return
        case .failed:
            close(c)
        }
    }

    /// Processes the connection's saved input (after a pause, or when a read was appended to it).
    private func processInbox(_ c: Connection) {
        var data = c.inbox
        c.inbox = []
        let used = data.withUnsafeBytes { process(c, $0) }
        guard c.machine.keepsInput else { return }
        if used < data.count {
            if used > 0 { data.removeFirst(used) }
            c.inbox = data
            c.machine.partialHeadKept(nowMs: clock.monoMs)
        }
    }

    private func runReady() {
        let list = ready
        ready.removeAll(keepingCapacity: true)
        for c in list {
            c.queuedReady = false
            guard c.machine.state == .awaitingHead, !c.inbox.isEmpty, !c.writePending else { continue }
            processInbox(c)
            flush(c)
        }
    }

    /// Runs the request cycle over `input`; returns how many bytes were consumed. Stops at the end of the
    /// input, at a pause (blocking handler, a close), or after `maxPipelinedPerRead` answers.
    private func process(_ c: Connection, _ input: UnsafeRawBufferPointer) -> Int {
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
                            c, errorResponse(for: e, p.route.errorRenderer), head: p.head, route: p.route.template,
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

    /// Routes a parsed head: answers errors at once, or sets up body reading, or dispatches. The head is
    /// consumed (moved into the pending request, not copied).
    private func beginRequest(_ c: Connection, _ head: consuming RequestHead) {
        let start = MonotonicClock.nanoseconds()
        let requestId = requestId(for: head)
        let hasBody = head.isChunked || (head.contentLength ?? 0) > 0
        guard let method = head.method else {
            // An unknown method's framing is unknown too (llhttp rejects it outright): answer and close.
            respond(
                c,
                errorResponse(
                    501, "NOT_IMPLEMENTED", "method not implemented", router.errorRenderer(forPath: head.path)),
                head: head, route: "<unmatched>", requestId: requestId, startNanos: start, mustClose: true)
            return
        }
        switch router.match(method: method, path: head.path) {
        case .notFound:
            respond(
                c, errorResponse(404, "NOT_FOUND", "no such route", router.errorRenderer(forPath: head.path)),
                head: head, route: "<unmatched>", requestId: requestId, startNanos: start, mustClose: hasBody)
        case .methodNotAllowed(let allow):
            var r = errorResponse(
                405, "METHOD_NOT_ALLOWED", "method not allowed on this route", router.errorRenderer(forPath: head.path))
            r.headers.append(("Allow", allow.joined(separator: ", ")))
            respond(c, r, head: head, route: "<unmatched>", requestId: requestId, startNanos: start, mustClose: hasBody)
        case .found(let route, let params):
            let declared = head.contentLength ?? 0
            if declared > route.maxBodyBytes {
                respond(
                    c, errorResponse(413, "PAYLOAD_TOO_LARGE", "request body too large", route.errorRenderer),
                    head: head, route: route.template, requestId: requestId, startNanos: start, mustClose: true)
                return
            }
            if !head.isChunked && declared == 0 {
                // No body: the head moves straight into the request.
                let request = Request(head: head, body: [], pathParameters: params, requestId: requestId, peer: c.peer)
                dispatch(c, request, route: route, startNanos: start)
                return
            }
            let sendContinue = head.expectsContinue && head.versionMinor == 1
            var p = Connection.PendingBody(
                head: head, route: route, parameters: params, requestId: requestId, startNanos: start,
                remaining: declared, chunked: nil, body: [])
            if p.head.isChunked {
                p.chunked = ChunkedDecoder(maxBodyBytes: route.maxBodyBytes, limits: options.parserLimits)
            }
            if declared > 0 { p.body.reserveCapacity(declared) }
            c.pendingBody = p
            _ = c.machine.bodyExpected(nowMs: clock.monoMs)  // the timer scan enforces the deadline
            if sendContinue { ResponseWriter.appendInterim(status: 100, into: &c.outbox) }
        }
    }

    /// Runs the handler of a complete request.
    private func dispatch(_ c: Connection, _ request: Request, route: Route, startNanos: UInt64) {
        switch route.handler(request) {
        case .respond(let response):
            respond(
                c, response, head: request.head, route: route.template, requestId: request.requestId,
                startNanos: startNanos, mustClose: false)
        case .blocking(let work):
            let id = c.id
            // A full worker queue (a dependency is down or slow) is answered at once, never waited for.
            let queued = pool.trySubmit { [self] in
                let response = work()
                self.post(Completion(connectionId: id, response: response))
            }
            guard queued else {
                respond(
                    c, busyResponse(route.errorRenderer), head: request.head, route: route.template,
                    requestId: request.requestId,
                    startNanos: startNanos, mustClose: false)
                return
            }
            // The completion is handled on this thread, so it cannot arrive before this state is set.
            _ = c.machine.handlerBlocked()  // input pauses when the output is flushed
            c.pendingBody = Connection.PendingBody(
                head: request.head, route: route, parameters: [], requestId: request.requestId,
                startNanos: startNanos, remaining: 0, chunked: nil, body: [])
        }
    }

    private func finishBlocking(_ c: Connection, _ response: Response) {
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
        let r = errorResponse(for: e, renderer)
        _ = c.machine.responding(keepAlive: false, mustClose: true, draining: draining)
        writeResponse(c, r, isHead: false, requestId: generateRequestId(), close: true)
        log.record(
            clock: clock, requestId: nil, method: "-", route: "<invalid>", status: r.status, bytes: r.body.count,
            micros: Int64((MonotonicClock.nanoseconds() - start) / 1000), peer: c.peer)
        metrics.record(shard: index, route: "<invalid>", method: "-", status: r.status, micros: 0)
    }

    /// The server's own error answer: the route's `renderer` when it has one (an app's envelope), else
    /// the body of `ServerOptions.errorBody`.
    private func errorResponse(_ status: Int, _ code: String, _ message: String, _ renderer: ErrorRenderer? = nil)
        -> Response
    {
        if let renderer { return renderer(status, code, message) }
        let (contentType, body) = options.errorBody(status, code, message)
        return Response(status: status, headers: [("Content-Type", contentType)], body: body)
    }

    /// 503 `SERVER_BUSY` with `Retry-After`: the worker pool's queue is full (`ServerOptions.maxQueuedJobs`).
    private func busyResponse(_ renderer: ErrorRenderer?) -> Response {
        var r = errorResponse(503, "SERVER_BUSY", "the server is busy; retry later", renderer)
        r.headers.append(("Retry-After", "1"))
        return r
    }

    private func errorResponse(for e: ParseError, _ renderer: ErrorRenderer? = nil) -> Response {
        let code: String
        switch e.status {
        case 400: code = "BAD_REQUEST"
        case 413: code = "PAYLOAD_TOO_LARGE"
        case 414: code = "URI_TOO_LONG"
        case 431: code = "HEADERS_TOO_LARGE"
        case 501: code = "NOT_IMPLEMENTED"
        case 505: code = "VERSION_NOT_SUPPORTED"
        default: code = "BAD_REQUEST"
        }
        return errorResponse(e.status, code, e.reason, renderer)
    }

    // MARK: - Responding

    private func respond(
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

    /// Writes the outbox with one `send`; arms EPOLLOUT on a partial write; then does what the machine
    /// says the written output means (linger, close, pause or resume input).
    func flush(_ c: Connection) {
        settleInFlight(c)
        if c.machine.state == .closed { return }
        while c.writePending {
            let r: IOResult
            if let t = c.tls {
                guard let o = writeTLS(c, t) else { return }
                r = o
            } else {
                r = c.outbox.withUnsafeBytes { buf in
                    Sys.write(c.fd, buf.baseAddress! + c.outOffset, buf.count - c.outOffset)
                }
            }
            switch r {
            case .done(let n):
                c.outOffset += n
                c.machine.progressed(nowMs: clock.monoMs)
            case .wouldBlock:
                if c.machine.writeBlocked() == .waitForWritable { setInterest(c, presignd_EPOLLOUT()) }
                return
            case .eof, .failed:
                close(c)
                return
            }
        }
        if c.outbox.capacity > 65_536 {
            c.outbox = []
        } else {
            c.outbox.removeAll(keepingCapacity: true)
        }
        c.outOffset = 0
        switch c.machine.writeFinished(nowMs: clock.monoMs, hasBufferedInput: !c.inbox.isEmpty, draining: draining) {
        case .close: close(c)
        case .linger: startLingering(c)
        case .pauseInput: setInterest(c, 0)
        case .resumeInput:
            setInterest(c, presignd_EPOLLIN() | presignd_EPOLLRDHUP())
            if c.tls != nil { queueTLSBufferedInput(c) }
        default: break
        }
    }

    private func onWritable(_ c: Connection) {
        if let t = c.tls, !t.established || t.readWantsWrite {
            // The handshake, or a read that had to write first, continues now that the socket is writable.
            t.readWantsWrite = false
            onReadable(c)
            return
        }
        flush(c)
        if c.machine.state == .awaitingHead, !c.inbox.isEmpty, !c.writePending, !c.machine.closeAfterWrite {
            processInbox(c)
            flush(c)
        }
    }

    /// Shuts the write side and discards input until the machine's lingering deadline, so the client
    /// reads the response before the kernel would reset the connection over unread data.
    private func startLingering(_ c: Connection) {
        c.tls?.sendCloseNotify()
        shutdown(c.fd, Int32(SHUT_WR))
        c.inbox = []
        c.pendingBody = nil
        setInterest(c, presignd_EPOLLIN() | presignd_EPOLLRDHUP())
    }

    /// Closes the connection (once; later calls do nothing).
    func close(_ c: Connection) {
        guard c.machine.closed() else { return }
        settleInFlight(c)
        // close(2) takes the descriptor out of the epoll set (it is never duplicated), so no
        // EPOLL_CTL_DEL is needed.
        if let t = c.tls {
            t.sendCloseNotify()
            c.tls = nil  // frees the SSL now
        }
        Sys.close(c.fd)
        connections[c.id] = nil
        c.inbox = []
        c.outbox = []
        c.pendingBody = nil
        shared.openConnections.wrappingSubtract(1, ordering: .relaxed)
        metrics.openConnections.wrappingSubtract(1, ordering: .relaxed)
    }

    /// Adds the machine's in-flight change to the gauge: the only place the loop touches it. A request
    /// answered inline begins and ends within one batch and never moves it.
    @inline(__always)
    private func settleInFlight(_ c: Connection) {
        let change = c.machine.takeInFlightChange()
        if change != 0 { metrics.inFlight.wrappingAdd(change, ordering: .relaxed) }
    }

    // MARK: - Timers and draining

    private func checkTimers() {
        let now = clock.monoMs
        var expired: [(Connection, Bool)] = []  // (connection, answer 408 first)
        for c in connections.values {
            switch c.machine.timerFired(nowMs: now, writePending: c.writePending) {
            case .close: expired.append((c, false))
            case .respondTimeout: expired.append((c, true))
            default: break
            }
        }
        for (c, answer) in expired {
            if answer, let p = c.pendingBody {
                c.pendingBody = nil
                respond(
                    c,
                    errorResponse(408, "REQUEST_TIMEOUT", "request body not received in time", p.route.errorRenderer),
                    head: p.head, route: p.route.template, requestId: p.requestId, startNanos: p.startNanos,
                    mustClose: true)
                flush(c)
            } else {
                close(c)
            }
        }
    }

    /// Starts a graceful drain on this loop: stop accepting, close idle connections, close the rest
    /// after their current response; the loop ends when none are left or at the drain deadline.
    private func beginDrain() {
        draining = true
        drainDeadlineMs = clock.monoMs + Int64(options.drainTimeoutMs)
        if let l = listener {
            do throws(ServerError) {
                try epoll.remove(l.fd)
            } catch {
                warn(error)  // closing the listener below takes it out of the set anyway
            }
            l.close()
            listener = nil
        }
        for c in Array(connections.values)
        where c.machine.drainBegun(hasBufferedInput: !c.inbox.isEmpty, writePending: c.writePending) == .close {
            close(c)
        }
    }

    // MARK: - Helpers

    /// Sets the connection's epoll interest; a refused `epoll_ctl` closes the connection (it would
    /// otherwise never be woken again).
    func setInterest(_ c: Connection, _ events: UInt32) {
        if c.armed == events && c.armed != 0 { return }
        do throws(ServerError) {
            if c.registered {
                try epoll.modify(c.fd, interest: events, token: c.id)
            } else {
                try epoll.add(c.fd, interest: events, token: c.id)
                c.registered = true
            }
            c.armed = events
        } catch {
            warn(error)
            close(c)
        }
    }

    /// Reports a failed epoll call on the server's log.
    private func warn(_ error: ServerError) {
        logSink.warn("event loop call failed", ["loop": index, "error": "\(error)"])
    }

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
