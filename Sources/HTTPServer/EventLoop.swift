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
/// What a request's head leads to is a pure decision (`RequestPlan`); the request cycle is in
/// `EventLoop+Requests.swift`, the timers and the drain in `EventLoop+Timers.swift`.
///
/// Confinement: every mutable field is touched only by the loop's own thread, except `completions`
/// (a `CompletionQueue`) and the wake-up eventfd, through which workers, `Responder`s and the server
/// post to the loop.
final class EventLoop: @unchecked Sendable {
    private static let listenerToken: UInt64 = 0
    private static let wakeToken: UInt64 = 1
    static let scratchSize = 65_536
    private static let timerIntervalMs: Int64 = 100

    /// The loop's index (its metrics shard and thread name).
    let index: Int
    let epoll: Epoll
    private let wakeFd: Int32
    var listener: Listener?
    let options: ServerOptions
    private let rules: ConnectionStateMachine.Rules
    let router: Router
    let pool: WorkerPool
    /// The pool of the brief routes' blocking work (`Route.brief`).
    let briefPool: WorkerPool
    let metrics: ServerMetrics
    /// State shared with the other loops of the server.
    let shared: SharedState
    let logSink: LogSink
    var connections: [UInt64: Connection] = [:]
    private var nextId: UInt64 = 2
    /// The loop's read buffer: every read lands here first.
    let scratch: UnsafeMutableRawPointer
    var ready: [Connection] = []
    /// TLS connections whose session holds input that epoll cannot signal (see `runTLSBuffered`).
    var tlsBuffered: [Connection] = []
    /// Whether new connections get a TLS session (fixed for the server's life).
    private let tlsEnabled: Bool
    private var nextTimerMs: Int64 = 0
    var draining = false
    var drainDeadlineMs: Int64 = 0
    private var stopped = false
    /// The loop's cached clock (ticked once per iteration).
    private(set) var clock: LoopClock
    var log: AccessLog
    /// Answers posted by workers and `Responder`s (one eventfd write per batch between two drains).
    private let completions = CompletionQueue<Completion>()
    /// The answers of the current drain (kept between drains for its room: `CompletionQueue.takeAll(into:)`).
    private var drained: [Completion] = []
    /// What this turn's handlers put off to its end (`LoopTurn`: the intent writer's wake-up).
    private let turnEnd = TurnEndQueue()
    var requestCounter: UInt64 = 0
    /// `<random hex><loop index hex>-`: the start of every request id this loop generates.
    let requestIdPrefix: [UInt8]

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
        briefPool: WorkerPool, metrics: ServerMetrics, shared: SharedState, logSink: LogSink
    ) throws(ServerError) {
        self.index = index
        self.options = options
        rules = ConnectionStateMachine.Rules(options: options)
        self.router = router
        self.pool = pool
        self.briefPool = briefPool
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

    /// Posts a worker's or a `Responder`'s answer to this loop (any thread); wakes the loop only when
    /// no answer was waiting already (`CompletionQueue`).
    func post(_ completion: Completion) {
        if completions.post(completion) { wake() }
    }

    /// Wakes the loop (any thread).
    func wake() {
        var one: UInt64 = 1
        _ = Glibc.write(wakeFd, &one, 8)
    }

    // MARK: - The loop

    /// Runs until the server stops and every connection is gone (or the drain deadline passes).
    func run() {
        LoopTurn.adopt(turnEnd)
        defer {
            turnEnd.runAll()
            LoopTurn.leave()
        }
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
                        onReadable(c, hungUp: flags & (presignd_EPOLLERR() | presignd_EPOLLHUP()) != 0)
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
            // Once per turn, before the next wait: the intent writer's wake-up for everything it queued.
            if !turnEnd.isEmpty { turnEnd.runAll() }
        }
        log.flush()
    }

    private func drainWakeups() {
        var v: UInt64 = 0
        _ = Glibc.read(wakeFd, &v, 8)  // before taking the queue: a later post wakes the loop again
        completions.takeAll(into: &drained)
        for item in drained {
            guard let c = connections[item.connectionId] else { continue }  // closed meanwhile
            finishAwaited(c, item.response)
        }
        drained.removeAll(keepingCapacity: true)
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
                var out: [UInt8] = []  // the cap's 503 has no body: nothing to shape
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

    /// The socket is readable, or `hungUp` (an error, or both directions closed).
    func onReadable(_ c: Connection, hungUp: Bool = false) {
        switch c.machine.readable(hungUp: hungUp) {
        case .read: break
        case .pauseInput:
            // Input arrived while the request before it is parked: stop reading until its answer is
            // written (pipelined answers stay in order); `flush` arms input again after the answer.
            setInterest(c, 0)
            return
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
    func processInbox(_ c: Connection) {
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

    // MARK: - Writing and closing

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
        case .pauseInput:
            // A request is parked: input stays armed (without EPOLLOUT), so its answer's write finds
            // the interest it needs and changes nothing; input arriving meanwhile pauses it
            // (`onReadable`).
            setInterest(c, presignd_EPOLLIN() | presignd_EPOLLRDHUP())
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
    func settleInFlight(_ c: Connection) {
        let change = c.machine.takeInFlightChange()
        if change != 0 { metrics.inFlight.wrappingAdd(change, ordering: .relaxed) }
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
    func warn(_ error: ServerError) {
        logSink.warn("event loop call failed", ["loop": index, "error": "\(error)"])
    }

}
