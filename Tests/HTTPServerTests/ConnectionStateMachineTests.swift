import Testing

@testable import HTTPServer

/// The connection rules as events in, actions out: no sockets, the clock's values passed in.
@Suite struct ConnectionStateMachineTests {
    static let rules = ConnectionStateMachine.Rules(
        headerTimeoutMs: 10_000, bodyTimeoutMs: 30_000, idleTimeoutMs: 60_000, maxPipelinedPerRead: 4)

    /// A machine accepted at t = 1000 ms.
    static func accepted(_ rules: ConnectionStateMachine.Rules = rules) -> ConnectionStateMachine {
        ConnectionStateMachine(nowMs: 1_000, rules: rules)
    }

    /// Runs one inline request (head, handler answers at once) through `m`.
    static func serveInline(_ m: inout ConnectionStateMachine, keepAlive: Bool = true) -> Bool {
        #expect(m.nextHead(hasInput: true) == .parse)
        m.headParsed()
        return m.responding(keepAlive: keepAlive, mustClose: false, draining: false)
    }

    @Test("keep-alive: a request is answered, input resumes, the connection stays")
    func keepAlive() {
        var m = Self.accepted()
        #expect(m.readable() == .read)
        #expect(m.bytesRead(40, nowMs: 1_010) == .process)
        m.processingStarted()
        #expect(!Self.serveInline(&m))
        #expect(m.nextHead(hasInput: false) == .stop)
        #expect(m.writeFinished(nowMs: 1_011, hasBufferedInput: false, draining: false) == .resumeInput)
        #expect(m.state == .awaitingHead)
        #expect(m.served == 1)
        #expect(m.headClockStartMs == nil, "an idle connection has no header clock")
    }

    @Test("Connection: close and HTTP/1.0 without keep-alive: close header, then linger, then close")
    func closeAfterResponse() {
        var m = Self.accepted()
        m.processingStarted()
        #expect(Self.serveInline(&m, keepAlive: false))
        #expect(m.nextHead(hasInput: true) == .stop, "pipelined requests after a close are not answered")
        #expect(m.writeFinished(nowMs: 2_000, hasBufferedInput: true, draining: false) == .linger(deadlineMs: 4_000))
        #expect(m.state == .lingering)
        #expect(m.readable() == .read)
        #expect(m.bytesRead(100, nowMs: 2_100) == .none, "lingering input is discarded")
        #expect(m.timerFired(nowMs: 4_000, writePending: false) == .none)
        #expect(m.timerFired(nowMs: 4_001, writePending: false) == .close)
    }

    @Test("lingering: the peer's end of stream or 1 MiB of discarded input closes at once")
    func lingering() {
        var m = Self.accepted()
        _ = m.responding(keepAlive: true, mustClose: true, draining: false)
        #expect(m.writeFinished(nowMs: 1_000, hasBufferedInput: false, draining: false) == .linger(deadlineMs: 3_000))
        #expect(m.bytesRead(1 << 20, nowMs: 1_001) == .none)
        #expect(m.bytesRead(1, nowMs: 1_002) == .close)
        var n = Self.accepted()
        _ = n.responding(keepAlive: true, mustClose: true, draining: false)
        _ = n.writeFinished(nowMs: 1_000, hasBufferedInput: false, draining: false)
        #expect(n.peerEnded(writePending: false) == .close)
    }

    @Test("a closing response to a peer that already left closes without lingering")
    func peerGoneBeforeWrite() {
        var m = Self.accepted()
        m.headParsed()
        #expect(m.peerEnded(writePending: true) == .none, "the pending output is written first")
        _ = m.responding(keepAlive: true, mustClose: false, draining: false)
        #expect(m.writeFinished(nowMs: 1_100, hasBufferedInput: false, draining: false) == .close)
    }

    @Test("408: the body deadline passes, the answer closes the connection")
    func bodyDeadline() {
        var m = Self.accepted()
        m.headParsed()
        #expect(m.bodyExpected(nowMs: 2_000) == .readBody(deadlineMs: 32_000))
        #expect(m.timerFired(nowMs: 32_000, writePending: false) == .none)
        #expect(m.timerFired(nowMs: 32_001, writePending: false) == .respondTimeout)
        #expect(m.closeAfterWrite)
        let closing = m.responding(keepAlive: true, mustClose: true, draining: false)
        #expect(closing)
        #expect(m.takeInFlightChange() == 0, "began and ended")
        #expect(m.writeFinished(nowMs: 32_002, hasBufferedInput: false, draining: false) == .linger(deadlineMs: 34_002))
    }

    @Test("a complete body dispatches; a malformed one answers and closes")
    func bodies() {
        var m = Self.accepted()
        m.headParsed()
        _ = m.bodyExpected(nowMs: 1_000)
        #expect(m.nextHead(hasInput: true) == .stop, "no head is parsed inside a body")
        #expect(m.bodyComplete() == .dispatch)
        #expect(m.state == .awaitingHead)
        var n = Self.accepted()
        n.headParsed()
        _ = n.bodyExpected(nowMs: 1_000)
        n.bodyFailed()
        let closing = n.responding(keepAlive: true, mustClose: true, draining: false)
        #expect(closing)
        #expect(n.nextHead(hasInput: true) == .stop)
    }

    @Test("header deadline counts the whole head from accept, or from the first byte of the next one")
    func headerDeadline() {
        var m = Self.accepted()
        #expect(m.timerFired(nowMs: 11_000, writePending: false) == .none)
        #expect(m.timerFired(nowMs: 11_001, writePending: false) == .close, "trickling bytes do not extend it")
        var n = Self.accepted()
        n.processingStarted()
        _ = Self.serveInline(&n)
        _ = n.writeFinished(nowMs: 1_000, hasBufferedInput: false, draining: false)
        n.partialHeadKept(nowMs: 5_000)
        n.partialHeadKept(nowMs: 6_000)
        #expect(n.headClockStartMs == 5_000, "the clock starts once")
        #expect(n.timerFired(nowMs: 15_001, writePending: false) == .close)
    }

    @Test("idle keep-alive timeout and a stalled write")
    func idleAndStalled() {
        var m = Self.accepted()
        m.processingStarted()
        _ = Self.serveInline(&m)
        m.progressed(nowMs: 2_000)
        #expect(m.timerFired(nowMs: 32_000, writePending: true) == .none)
        #expect(m.timerFired(nowMs: 32_001, writePending: true) == .close, "a write stalled past bodyTimeoutMs")
        _ = m.writeFinished(nowMs: 2_000, hasBufferedInput: false, draining: false)
        #expect(m.timerFired(nowMs: 62_000, writePending: false) == .none)
        #expect(m.timerFired(nowMs: 62_001, writePending: false) == .close)
    }

    @Test("pipelining: at most maxPipelinedPerRead heads per run, then yield; the next run starts over")
    func pipelineBound() {
        var m = Self.accepted()
        m.processingStarted()
        for _ in 0..<4 { _ = Self.serveInline(&m) }
        #expect(m.nextHead(hasInput: true) == .yield)
        m.processingStarted()
        #expect(m.nextHead(hasInput: true) == .parse)
    }

    @Test("a blocking handler pauses input (once more arrives); a hang-up meanwhile closes; its late answer is dropped")
    func blockingHandler() {
        var m = Self.accepted()
        m.headParsed()
        #expect(m.handlerBlocked() == .pauseInput)
        #expect(m.nextHead(hasInput: true) == .stop, "pipelined requests wait, in order")
        #expect(m.keepsInput)
        #expect(m.writeFinished(nowMs: 1_000, hasBufferedInput: true, draining: false) == .pauseInput)
        #expect(m.timerFired(nowMs: 1_000_000, writePending: false) == .none, "no deadline while a worker runs")
        #expect(m.handlerFinished() == .dispatch)
        var n = Self.accepted()
        n.headParsed()
        _ = n.handlerBlocked()
        #expect(n.readable() == .pauseInput, "more input while parked pauses reading; it is not read")
        #expect(n.readable(hungUp: true) == .close)
        let first = n.closed()
        #expect(first)
        #expect(n.handlerFinished() == .none)
        let second = n.closed()
        #expect(!second, "closing twice does nothing")
    }

    @Test("in flight: +1 at the head, -1 at the response or the close, reported once")
    func inFlight() {
        var m = Self.accepted()
        m.headParsed()
        _ = m.bodyExpected(nowMs: 1_000)
        #expect(m.takeInFlightChange() == 1)
        #expect(m.takeInFlightChange() == 0)
        let closed = m.closed()
        #expect(closed)
        #expect(m.takeInFlightChange() == -1)
        var n = Self.accepted()
        n.processingStarted()
        for _ in 0..<3 { _ = Self.serveInline(&n) }
        #expect(n.takeInFlightChange() == 0, "inline requests never move the gauge")
        var p = Self.accepted()
        _ = p.responding(keepAlive: true, mustClose: true, draining: false)  // a parse error: nothing began
        #expect(p.takeInFlightChange() == 0)
    }

    @Test("drain: idle connections close, busy ones answer with close and then close")
    func drain() {
        var fresh = Self.accepted()
        #expect(fresh.drainBegun(hasBufferedInput: false, writePending: false) == .close)
        var partial = Self.accepted()
        #expect(partial.drainBegun(hasBufferedInput: true, writePending: false) == .none)
        var busy = Self.accepted()
        busy.headParsed()
        _ = busy.handlerBlocked()
        #expect(busy.drainBegun(hasBufferedInput: false, writePending: false) == .none)
        #expect(busy.handlerFinished() == .dispatch)
        let closing = busy.responding(keepAlive: true, mustClose: false, draining: true)
        #expect(closing, "Connection: close while draining")
        var served = Self.accepted()
        served.processingStarted()
        _ = Self.serveInline(&served)
        #expect(served.writeFinished(nowMs: 1_000, hasBufferedInput: false, draining: true) == .close)
    }

    @Test("connection cap: accept below it, evict the idle, else 503 (plain) or close (TLS)")
    func connectionCap() {
        typealias M = ConnectionStateMachine
        #expect(M.admission(open: 2, maxConnections: 3, canEvict: false, tls: false) == .accept)
        #expect(M.admission(open: 3, maxConnections: 3, canEvict: true, tls: false) == .evictIdleThenAccept)
        #expect(M.admission(open: 3, maxConnections: 3, canEvict: false, tls: false) == .refuseWith503)
        #expect(M.admission(open: 3, maxConnections: 3, canEvict: false, tls: true) == .refuse)
        var m = Self.accepted()
        #expect(m.isIdle(hasBufferedInput: false, writePending: false))
        #expect(!m.isIdle(hasBufferedInput: true, writePending: false))
        #expect(!m.isIdle(hasBufferedInput: false, writePending: true))
        m.headParsed()
        _ = m.bodyExpected(nowMs: 1_000)
        #expect(!m.isIdle(hasBufferedInput: false, writePending: false), "a body being read is not idle")
    }
}
