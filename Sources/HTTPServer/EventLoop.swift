import CLinux
import HTTP1
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One event loop: a thread with its own epoll, its own listening socket (SO_REUSEPORT) and the
/// connections it accepted. Nothing here blocks except `epoll_wait`.
///
/// Confinement: every mutable field is touched only by the loop's own thread, except `completions`
/// (a mutex) and the wake-up eventfd, through which workers and the server post to the loop.
final class EventLoop: @unchecked Sendable {
    private static let listenerToken: UInt64 = 0
    private static let wakeToken: UInt64 = 1
    private static let scratchSize = 65_536
    private static let timerIntervalMs: Int64 = 100

    let index: Int
    private let epfd: Int32
    private let wakeFd: Int32
    private var listener: Listener?
    private let options: ServerOptions
    private let router: Router
    private let pool: WorkerPool
    private let metrics: ServerMetrics
    private let shared: SharedState
    private var connections: [UInt64: Connection] = [:]
    private var nextId: UInt64 = 2
    private let scratch: UnsafeMutableRawPointer
    private var events: UnsafeMutableRawPointer
    private let maxEvents: Int32 = 512
    private var ready: [Connection] = []
    /// TLS connections whose session holds input that epoll cannot signal (see `runTLSBuffered`).
    private var tlsBuffered: [Connection] = []
    /// Whether new connections get a TLS session (fixed for the server's life).
    private let tlsEnabled: Bool
    private var nextTimerMs: Int64 = 0
    private var draining = false
    private var drainDeadlineMs: Int64 = 0
    private var stopped = false
    private var clock: LoopClock
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
        let stopRequested = Atomic<Bool>(false)
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
        self.router = router
        self.pool = pool
        self.metrics = metrics
        self.shared = shared
        self.listener = listener
        tlsEnabled = options.tls != nil
        epfd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epfd >= 0 else { throw .socket("epoll_create1", errno) }
        wakeFd = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wakeFd >= 0 else { throw .socket("eventfd", errno) }
        scratch = UnsafeMutableRawPointer.allocate(byteCount: EventLoop.scratchSize, alignment: 16)
        events = UnsafeMutableRawPointer.allocate(
            byteCount: Int(presignd_epoll_event_size()) * Int(maxEvents), alignment: 16)
        clock = LoopClock()
        log = AccessLog(enabled: options.accessLog, sink: logSink)
        var rnd = SystemRandomNumberGenerator()
        requestIdPrefix = Array(
            (String(UInt32.random(in: 0...UInt32.max, using: &rnd), radix: 16) + String(index, radix: 16) + "-").utf8)
        register(fd: listener.fd, token: EventLoop.listenerToken, events: presignd_EPOLLIN())
        register(fd: wakeFd, token: EventLoop.wakeToken, events: presignd_EPOLLIN())
    }

    deinit {
        Sys.close(epfd)
        Sys.close(wakeFd)
        scratch.deallocate()
        events.deallocate()
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
            let n = epoll_wait(epfd, events.assumingMemoryBound(to: epoll_event.self), maxEvents, timeout)
            clock.tick()
            if n > 0 {
                let evs = UnsafePointer(events.assumingMemoryBound(to: epoll_event.self))
                for i in 0..<Int(n) {
                    let token = presignd_epoll_event_data(evs, Int32(i))
                    let flags = presignd_epoll_event_events(evs, Int32(i))
                    switch token {
                    case EventLoop.listenerToken: acceptAll()
                    case EventLoop.wakeToken: drainWakeups()
                    default:
                        guard let c = connections[token] else { continue }
                        if flags & presignd_EPOLLOUT() != 0 { onWritable(c) }
                        if flags
                            & (presignd_EPOLLIN() | presignd_EPOLLERR() | presignd_EPOLLHUP() | presignd_EPOLLRDHUP())
                            != 0
                        {
                            onReadable(c)
                        }
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
            guard let c = connections[item.connectionId], case .waitingForHandler = c.phase else { continue }
            finishBlocking(c, item.response)
        }
        if shared.shuttingDown.load(ordering: .acquiring) && !draining { beginDrain() }
    }

    // MARK: - Accepting

    private func acceptAll() {
        guard let listener else { return }
        for _ in 0..<64 {
            guard let (fd, peer) = Sys.accept(listener.fd) else { return }
            if shared.openConnections.load(ordering: .relaxed) >= options.maxConnections {
                if !evictOldestIdle() {
                    // Nothing idle to close here: answer 503 and close the newcomer (over TLS no
                    // answer is possible before a handshake, so the newcomer is just closed).
                    if tlsEnabled {
                        Sys.close(fd)
                        continue
                    }
                    let msg = Array(
                        "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
                    _ = msg.withUnsafeBytes { Sys.write(fd, $0.baseAddress!, $0.count) }
                    Sys.close(fd)
                    continue
                }
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
            let c = Connection(id: nextId, fd: fd, peer: peer, nowMs: clock.monoMs, tls: session)
            nextId &+= 1
            connections[c.id] = c
            _ = shared.openConnections.wrappingAdd(1, ordering: .relaxed)
            metrics.openConnections.wrappingAdd(1, ordering: .relaxed)
            setInterest(c, presignd_EPOLLIN() | presignd_EPOLLRDHUP())
        }
    }

    /// Closes this loop's longest-idle connection; false when none is idle.
    private func evictOldestIdle() -> Bool {
        var oldest: Connection?
        for c in connections.values where c.isIdle {
            if oldest == nil || c.lastActiveMs < oldest!.lastActiveMs { oldest = c }
        }
        guard let o = oldest else { return false }
        close(o)
        return true
    }

    // MARK: - Reading and processing

    private func onReadable(_ c: Connection) {
        switch c.phase {
        case .closed: return
        case .waitingForHandler:
            // Input is paused; a hang-up means the client left: its response will be dropped.
            close(c)
            return
        default: break
        }
        let r: IOResult
        if let t = c.tls, c.phase != .lingering {
            guard let decrypted = readTLS(c, t) else { return }
            r = decrypted
        } else {
            r = Sys.read(c.fd, scratch, EventLoop.scratchSize)
        }
        switch r {
        case .done(let n):
            c.lastActiveMs = clock.monoMs
            if case .lingering = c.phase {
                c.discarded += n
                if c.discarded > 1 << 20 { close(c) }
                return
            }
            if c.inbox.isEmpty {
                let input = UnsafeRawBufferPointer(start: scratch, count: n)
                let used = process(c, input)
                if used < n, c.phase != .closed, c.phase != .lingering {
                    c.inbox = Array(input[used...])
                    if c.headClockStartMs == nil, case .awaitingHead = c.phase { c.headClockStartMs = clock.monoMs }
                }
            } else {
                c.inbox.append(contentsOf: UnsafeRawBufferPointer(start: scratch, count: n))
                processInbox(c)
            }
            flush(c)
        case .eof:
            c.peerClosed = true
            if case .lingering = c.phase { close(c); return }
            if c.outOffset < c.outbox.count { c.closeAfterWrite = true; return }
            close(c)
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
        if c.phase == .closed || c.phase == .lingering { return }
        if used < data.count {
            if used > 0 { data.removeFirst(used) }
            c.inbox = data
            if c.headClockStartMs == nil, case .awaitingHead = c.phase { c.headClockStartMs = clock.monoMs }
        }
    }

    private func runReady() {
        let list = ready
        ready.removeAll(keepingCapacity: true)
        for c in list {
            c.queuedReady = false
            guard case .awaitingHead = c.phase, !c.inbox.isEmpty, c.outOffset >= c.outbox.count else { continue }
            processInbox(c)
            flush(c)
        }
    }

    /// Runs the request cycle over `input`; returns how many bytes were consumed. Stops at the end of the
    /// input, at a pause (blocking handler, a close), or after `maxPipelinedPerRead` answers.
    private func process(_ c: Connection, _ input: UnsafeRawBufferPointer) -> Int {
        var offset = 0
        var answered = 0
        while true {
            switch c.phase {
            case .awaitingHead:
                if offset >= input.count || c.closeAfterWrite { return offset }
                if answered >= options.maxPipelinedPerRead {
                    if !c.queuedReady {
                        c.queuedReady = true
                        ready.append(c)
                    }
                    return offset
                }
                let rest = UnsafeRawBufferPointer(rebasing: input[offset...])
                switch RequestParser.parseHead(rest, limits: options.parserLimits) {
                case .incomplete:
                    return offset
                case .failure(let e):
                    answerParseError(c, e)
                    return input.count
                case .complete(let head, let used):
                    offset += used
                    answered += 1
                    c.headClockStartMs = nil
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
                        c.pendingBody = nil
                        c.phase = .awaitingHead
                        metrics.inFlight.wrappingSubtract(1, ordering: .relaxed)
                        respond(
                            c, errorResponse(for: e), head: p.head, route: p.route.template, requestId: p.requestId,
                            startNanos: p.startNanos, close: true)
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
                c.phase = .awaitingHead
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
        let start = Sys.monotonicNanos()
        metrics.inFlight.wrappingAdd(1, ordering: .relaxed)
        let requestId = requestId(for: head)
        let hasBody = head.isChunked || (head.contentLength ?? 0) > 0
        guard let method = head.method else {
            metrics.inFlight.wrappingSubtract(1, ordering: .relaxed)
            respond(
                // An unknown method's framing is unknown too (llhttp rejects it outright): answer and close.
                c, .error(501, code: "NOT_IMPLEMENTED", message: "method not implemented"), head: head,
                route: "<unmatched>", requestId: requestId, startNanos: start, close: true)
            return
        }
        switch router.match(method: method, path: head.path) {
        case .notFound:
            metrics.inFlight.wrappingSubtract(1, ordering: .relaxed)
            respond(
                c, .error(404, code: "NOT_FOUND", message: "no such route"), head: head, route: "<unmatched>",
                requestId: requestId, startNanos: start, close: hasBody)
        case .methodNotAllowed(let allow):
            metrics.inFlight.wrappingSubtract(1, ordering: .relaxed)
            var r = Response.error(405, code: "METHOD_NOT_ALLOWED", message: "method not allowed on this route")
            r.headers.append(("Allow", allow.joined(separator: ", ")))
            respond(c, r, head: head, route: "<unmatched>", requestId: requestId, startNanos: start, close: hasBody)
        case .found(let route, let params):
            let declared = head.contentLength ?? 0
            if declared > route.maxBodyBytes {
                metrics.inFlight.wrappingSubtract(1, ordering: .relaxed)
                respond(
                    c, .error(413, code: "PAYLOAD_TOO_LARGE", message: "request body too large"), head: head,
                    route: route.template, requestId: requestId, startNanos: start, close: true)
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
            c.phase = .readingBody
            c.deadlineMs = clock.monoMs + Int64(options.bodyTimeoutMs)
            if sendContinue {
                c.outbox.append(contentsOf: "HTTP/1.1 100 Continue\r\n\r\n".utf8)
            }
        }
    }

    /// Runs the handler of a complete request.
    private func dispatch(_ c: Connection, _ request: Request, route: Route, startNanos: UInt64) {
        switch route.handler(request) {
        case .respond(let response):
            metrics.inFlight.wrappingSubtract(1, ordering: .relaxed)
            respond(
                c, response, head: request.head, route: route.template, requestId: request.requestId,
                startNanos: startNanos, close: false)
        case .blocking(let work):
            c.phase = .waitingForHandler
            c.pendingBody = Connection.PendingBody(
                head: request.head, route: route, parameters: [], requestId: request.requestId,
                startNanos: startNanos, remaining: 0, chunked: nil, body: [])
            let id = c.id
            pool.submit { [self] in
                let response = work()
                self.post(Completion(connectionId: id, response: response))
            }
        }
    }

    private func finishBlocking(_ c: Connection, _ response: Response) {
        guard let p = c.pendingBody else { return }
        c.pendingBody = nil
        c.phase = .awaitingHead
        metrics.inFlight.wrappingSubtract(1, ordering: .relaxed)
        respond(
            c, response, head: p.head, route: p.route.template, requestId: p.requestId,
            startNanos: p.startNanos, close: false)
        if !c.closeAfterWrite && !c.inbox.isEmpty { processInbox(c) }
        flush(c)
    }

    private func answerParseError(_ c: Connection, _ e: ParseError) {
        let start = Sys.monotonicNanos()
        let r = errorResponse(for: e)
        writeResponse(c, r, isHead: false, requestId: generateRequestId(), close: true)
        log.record(
            clock: clock, requestId: nil, method: "-", route: "<invalid>", status: r.status, bytes: r.body.count,
            micros: Int64((Sys.monotonicNanos() - start) / 1000), peer: c.peer)
        metrics.record(shard: index, route: "<invalid>", method: "-", status: r.status, micros: 0)
    }

    private func errorResponse(for e: ParseError) -> Response {
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
        return .error(e.status, code: code, message: e.reason)
    }

    // MARK: - Responding

    private func respond(
        _ c: Connection, _ response: Response, head: RequestHead, route: String, requestId: String,
        startNanos: UInt64, close: Bool
    ) {
        let closing = close || !head.keepAlive || draining
        writeResponse(c, response, isHead: head.method == .HEAD, requestId: requestId, close: closing)
        c.served += 1
        let micros = Int64((Sys.monotonicNanos() &- startNanos) / 1000)
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
        out.append(contentsOf: StatusLine.bytes(r.status))
        out.append(contentsOf: clock.dateHeader)
        let noBody = r.status == 204 || r.status == 304 || (r.status >= 100 && r.status < 200)
        if !noBody {
            out.append(ascii: "Content-Length: ")
            appendDecimal(r.body.count, to: &out)
            out.append(13)
            out.append(10)
        }
        for h in r.headers {
            out.append(utf8: h.name)
            out.append(ascii: ": ")
            out.append(utf8: h.value)
            out.append(13)
            out.append(10)
        }
        out.append(ascii: "X-Request-Id: ")
        out.append(utf8: requestId)
        out.append(13)
        out.append(10)
        if close {
            out.append(ascii: "Connection: close\r\n")
            c.closeAfterWrite = true
        }
        out.append(13)
        out.append(10)
        if !isHead && !noBody { out.append(contentsOf: r.body) }
        c.outbox = out
    }

    /// Writes the outbox with one `send`; arms EPOLLOUT on a partial write; closes when asked.
    private func flush(_ c: Connection) {
        if c.phase == .closed { return }
        while c.outOffset < c.outbox.count {
            let r: IOResult
            if let t = c.tls {
                let o = c.outbox.withUnsafeBytes { buf in
                    t.write(buf.baseAddress! + c.outOffset, count: buf.count - c.outOffset)
                }
                switch o {
                case .done(let n): r = .done(n)
                case .wantWrite: r = .wouldBlock
                case .wantRead:
                    // Retried from `readTLS` when the socket turns readable.
                    t.writeWantsRead = true
                    setInterest(c, presignd_EPOLLIN() | presignd_EPOLLRDHUP())
                    return
                case .closed, .failed: r = .failed(0)
                }
            } else {
                r = c.outbox.withUnsafeBytes { buf in
                    Sys.write(c.fd, buf.baseAddress! + c.outOffset, buf.count - c.outOffset)
                }
            }
            switch r {
            case .done(let n):
                c.outOffset += n
                c.lastActiveMs = clock.monoMs
            case .wouldBlock:
                setInterest(c, presignd_EPOLLOUT())
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
        if c.closeAfterWrite {
            if c.peerClosed { close(c) } else { startLingering(c) }
            return
        }
        switch c.phase {
        case .waitingForHandler: setInterest(c, 0)
        case .closed, .lingering: break
        default:
            setInterest(c, presignd_EPOLLIN() | presignd_EPOLLRDHUP())
            if draining && c.isIdle {
                close(c)
            } else if let t = c.tls, !c.queuedTLSRead, t.hasBufferedInput {
                // Input resumes, but what OpenSSL already holds will not make the socket readable.
                c.queuedTLSRead = true
                tlsBuffered.append(c)
            }
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
        if c.phase == .awaitingHead, !c.inbox.isEmpty, c.outOffset >= c.outbox.count, !c.closeAfterWrite {
            processInbox(c)
            flush(c)
        }
    }

    /// Shuts the write side and discards input for a short while, so the client reads the response
    /// before the kernel would reset the connection over unread data.
    private func startLingering(_ c: Connection) {
        c.tls?.sendCloseNotify()
        shutdown(c.fd, Int32(SHUT_WR))
        c.phase = .lingering
        c.inbox = []
        c.pendingBody = nil
        c.deadlineMs = clock.monoMs + 2_000
        setInterest(c, presignd_EPOLLIN() | presignd_EPOLLRDHUP())
    }

    private func close(_ c: Connection) {
        if c.phase == .closed { return }
        if case .readingBody = c.phase { metrics.inFlight.wrappingSubtract(1, ordering: .relaxed) }
        if case .waitingForHandler = c.phase { metrics.inFlight.wrappingSubtract(1, ordering: .relaxed) }
        c.phase = .closed
        epoll_ctl(epfd, EPOLL_CTL_DEL, c.fd, nil)
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

    // MARK: - Timers and draining

    private func checkTimers() {
        let now = clock.monoMs
        var expired: [(Connection, Bool)] = []  // (connection, answer 408 first)
        for c in connections.values {
            switch c.phase {
            case .awaitingHead:
                if c.outOffset < c.outbox.count {
                    if now - c.lastActiveMs > Int64(options.bodyTimeoutMs) { expired.append((c, false)) }
                } else if let t = c.headClockStartMs {
                    if now - t > Int64(options.headerTimeoutMs) { expired.append((c, false)) }
                } else if now - c.lastActiveMs > Int64(options.idleTimeoutMs) {
                    expired.append((c, false))
                }
            case .readingBody:
                if now > c.deadlineMs { expired.append((c, true)) }
            case .lingering:
                if now > c.deadlineMs { expired.append((c, false)) }
            case .waitingForHandler, .closed:
                break
            }
        }
        for (c, answer) in expired {
            if answer, let p = c.pendingBody {
                c.pendingBody = nil
                c.phase = .awaitingHead
                metrics.inFlight.wrappingSubtract(1, ordering: .relaxed)
                respond(
                    c, .error(408, code: "REQUEST_TIMEOUT", message: "request body not received in time"),
                    head: p.head, route: p.route.template, requestId: p.requestId, startNanos: p.startNanos,
                    close: true)
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
            epoll_ctl(epfd, EPOLL_CTL_DEL, l.fd, nil)
            l.close()
            listener = nil
        }
        for c in Array(connections.values) where c.isIdle && (c.headClockStartMs == nil || c.served == 0) {
            close(c)
        }
    }

    // MARK: - TLS

    /// Drives the handshake, then decrypts one record into the scratch buffer. Nil when there is nothing
    /// to process now: the handshake or a retried operation waits for the socket, or the connection closed.
    private func readTLS(_ c: Connection, _ t: TLSServerSession) -> IOResult? {
        if t.writeWantsRead {
            t.writeWantsRead = false
            flush(c)
            return nil
        }
        var justEstablished = false
        if !t.established {
            switch t.handshake() {
            case .done:
                justEstablished = true
                c.lastActiveMs = clock.monoMs
            case .wantRead:
                setInterest(c, presignd_EPOLLIN() | presignd_EPOLLRDHUP())
                return nil
            case .wantWrite:
                setInterest(c, presignd_EPOLLOUT())
                return nil
            case .closed, .failed:
                shared.tlsHandshakeFailures.wrappingAdd(1, ordering: .relaxed)
                close(c)
                return nil
            }
        }
        switch t.read(into: scratch, count: EventLoop.scratchSize) {
        case .done(let n):
            return .done(n)
        case .wantRead:
            // After a handshake finished on EPOLLOUT, wait for the request.
            if justEstablished { setInterest(c, presignd_EPOLLIN() | presignd_EPOLLRDHUP()) }
            return .wouldBlock
        case .wantWrite:
            t.readWantsWrite = true
            setInterest(c, presignd_EPOLLOUT())
            return nil
        case .closed:
            return .eof
        case .failed:
            return .failed(0)
        }
    }

    /// Reads the connections whose TLS session held input when their input resumed: level-triggered
    /// epoll cannot see bytes OpenSSL has already taken off the socket. One record each per iteration.
    private func runTLSBuffered() {
        let list = tlsBuffered
        tlsBuffered.removeAll(keepingCapacity: true)
        for c in list {
            c.queuedTLSRead = false
            switch c.phase {
            case .awaitingHead, .readingBody:
                if c.armed & presignd_EPOLLIN() != 0 { onReadable(c) }
            case .waitingForHandler, .lingering, .closed:
                continue
            }
        }
    }

    // MARK: - Helpers

    private func setInterest(_ c: Connection, _ events: UInt32) {
        if c.armed == events && c.armed != 0 { return }
        var ev = epoll_event()
        presignd_epoll_event_set(&ev, events, c.id)
        let op = c.armed == 0 && !c.registered ? EPOLL_CTL_ADD : EPOLL_CTL_MOD
        c.registered = true
        epoll_ctl(epfd, op, c.fd, &ev)
        c.armed = events
    }

    private func register(fd: Int32, token: UInt64, events: UInt32) {
        var ev = epoll_event()
        presignd_epoll_event_set(&ev, events, token)
        epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev)
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

/// Rules for request ids taken from clients.
enum RequestIdentifier {
    /// 1 to 128 characters of `[A-Za-z0-9._:-]`.
    static func isWellFormed(_ s: String) -> Bool {
        let u = s.utf8
        guard !u.isEmpty, u.count <= 128 else { return false }
        for b in u {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: ":"),
                UInt8(ascii: "-"):
                continue
            default: return false
            }
        }
        return true
    }
}

/// Appends the decimal digits of a non-negative integer.
@inline(__always)
func appendDecimal(_ value: Int, to out: inout [UInt8]) {
    if value < 10 {
        out.append(UInt8(ascii: "0") + UInt8(value))
        return
    }
    var digits:
        (
            UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
            UInt8, UInt8, UInt8, UInt8, UInt8
        ) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    var v = value
    var n = 0
    withUnsafeMutableBytes(of: &digits) { d in
        while v > 0 {
            d[n] = UInt8(ascii: "0") + UInt8(v % 10)
            v /= 10
            n += 1
        }
        while n > 0 {
            n -= 1
            out.append(d[n])
        }
    }
}
