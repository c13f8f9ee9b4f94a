/// The events of the request cycle: reading, parsing, bodies, handlers, writing, the peer's close.
extension ConnectionStateMachine {
    /// The socket is readable, or `hungUp` (an error or both directions closed): `.read`; while a
    /// handler runs `.pauseInput` (input stays armed while a request is parked and pauses only when
    /// more of it arrives, which saves two `epoll_ctl` calls per parked request), or `.close` when hung
    /// up (the client left; its response will be dropped); `.none` once closed.
    mutating func readable(hungUp: Bool = false) -> Action {
        switch state {
        case .closed: return .none
        case .waitingForHandler: return hungUp ? .close : .pauseInput
        default: return .read
        }
    }

    /// `count` bytes were read at `nowMs`: `.process`, or while lingering `.none` (discarded) and
    /// `.close` past `maxLingerBytes`.
    mutating func bytesRead(_ count: Int, nowMs: Int64) -> Action {
        lastActiveMs = nowMs
        switch state {
        case .lingering:
            discarded += count
            return discarded > rules.maxLingerBytes ? .close : .none
        case .closed:
            return .none
        default:
            return .process
        }
    }

    /// A run over some input starts (one read, or saved input): the per-read bound counts from here.
    mutating func processingStarted() {
        parsedInBatch = 0
    }

    /// Whether to parse another head: `.parse`, `.yield` at the per-read bound, `.stop` without input,
    /// outside `awaitingHead`, or when the connection closes after its response (pipelined requests
    /// after a `Connection: close` are never answered).
    mutating func nextHead(hasInput: Bool) -> Action {
        guard state == .awaitingHead, hasInput, !closeAfterWrite else { return .stop }
        return parsedInBatch >= rules.maxPipelinedPerRead ? .yield : .parse
    }

    /// Part of a head stays buffered at `nowMs`: the header deadline starts if it had not.
    mutating func partialHeadKept(nowMs: Int64) {
        if state == .awaitingHead && headClockStartMs == nil { headClockStartMs = nowMs }
    }

    /// A head was parsed: a request is in flight; the header deadline stops.
    mutating func headParsed() {
        headClockStartMs = nil
        parsedInBatch += 1
        if !requestInFlight {
            requestInFlight = true
            inFlightChange += 1
        }
    }

    /// The routed request has a body: `.readBody` with its deadline.
    mutating func bodyExpected(nowMs: Int64) -> Action {
        state = .readingBody
        deadlineMs = nowMs + rules.bodyTimeoutMs
        return .readBody(deadlineMs: deadlineMs)
    }

    /// The body is complete: `.dispatch`.
    mutating func bodyComplete() -> Action {
        guard state == .readingBody else { return .none }
        state = .awaitingHead
        return .dispatch
    }

    /// The body is malformed (chunked framing, over the limit): the error answer closes the connection.
    mutating func bodyFailed() {
        if state == .readingBody { state = .awaitingHead }
        closeAfterWrite = true
    }

    /// The handler's answer comes later (a worker, or a deferred `Responder`): `.pauseInput` (keeps
    /// pipelined answers in order; the loop pauses lazily, when input arrives, see `readable`).
    mutating func handlerBlocked() -> Action {
        state = .waitingForHandler
        return .pauseInput
    }

    /// The awaited answer arrived: `.dispatch` (write it) when the connection still waits for it,
    /// `.none` when it closed meanwhile (the answer is dropped).
    mutating func handlerFinished() -> Action {
        guard state == .waitingForHandler else { return .none }
        state = .awaitingHead
        return .dispatch
    }

    /// A response is queued; true when it must carry `Connection: close` and the connection close
    /// after it: `mustClose` (an error whose framing is unsure), no keep-alive, or a drain. Ends the
    /// request in flight, if any.
    mutating func responding(keepAlive: Bool, mustClose: Bool, draining: Bool) -> Bool {
        served += 1
        if requestInFlight {
            requestInFlight = false
            inFlightChange -= 1
        }
        let close = mustClose || !keepAlive || draining
        if close { closeAfterWrite = true }
        return close
    }

    /// Bytes were written (or a TLS handshake step completed) at `nowMs`.
    mutating func progressed(nowMs: Int64) {
        lastActiveMs = nowMs
    }

    /// The socket took part of the output only: `.waitForWritable`.
    mutating func writeBlocked() -> Action {
        .waitForWritable
    }

    /// The output is written (or there was none): `.close` or `.linger` after a closing response
    /// (`.close` at once when the peer already left), `.pauseInput` while a handler runs, `.close` for
    /// an idle connection during a drain, else `.resumeInput`.
    mutating func writeFinished(nowMs: Int64, hasBufferedInput: Bool, draining: Bool) -> Action {
        if closeAfterWrite {
            if peerClosed || state == .closed || state == .lingering {
                return state == .lingering ? .none : .close
            }
            state = .lingering
            deadlineMs = nowMs + rules.lingerMs
            return .linger(deadlineMs: deadlineMs)
        }
        switch state {
        case .waitingForHandler: return .pauseInput
        case .closed, .lingering: return .none
        case .awaitingHead, .readingBody:
            if draining && isIdle(hasBufferedInput: hasBufferedInput, writePending: false) { return .close }
            return .resumeInput
        }
    }

    /// The peer ended its stream: `.close`, or `.none` while output is pending (the connection closes
    /// once it is written).
    mutating func peerEnded(writePending: Bool) -> Action {
        peerClosed = true
        if state == .lingering { return .close }
        if writePending {
            closeAfterWrite = true
            return .none
        }
        return .close
    }

    /// The connection closed; false when it already was. A request in flight ends here.
    mutating func closed() -> Bool {
        guard state != .closed else { return false }
        state = .closed
        if requestInFlight {
            requestInFlight = false
            inFlightChange -= 1
        }
        return true
    }

    /// The change of the in-flight count since the last call (the shell adds it to the gauge).
    mutating func takeInFlightChange() -> Int {
        let change = inFlightChange
        inFlightChange = 0
        return change
    }

    /// True when nothing is pending: waiting for a head with no partial input and no output.
    func isIdle(hasBufferedInput: Bool, writePending: Bool) -> Bool {
        state == .awaitingHead && !hasBufferedInput && !writePending
    }

    /// True unless closed or lingering: unconsumed input is kept for later (a partial head, or
    /// pipelined requests behind a blocking handler or beyond the per-read bound).
    var keepsInput: Bool { state != .closed && state != .lingering }

    /// True in the states that read input (TLS input buffered in OpenSSL is read only then).
    var acceptsInput: Bool { state == .awaitingHead || state == .readingBody }
}
