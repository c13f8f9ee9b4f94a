import CLinux

/// The TLS side of the event loop: the handshake, decrypting reads, encrypting writes, and input that
/// OpenSSL holds where epoll cannot see it.
extension EventLoop {
    /// Drives the handshake, then decrypts one record into the scratch buffer. Nil when there is nothing
    /// to process now: the handshake or a retried operation waits for the socket, or the connection closed.
    func readTLS(_ c: Connection, _ t: TLSServerSession) -> IOResult? {
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
                c.machine.progressed(nowMs: clock.monoMs)
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

    /// Encrypts and sends the unwritten outbox; nil when the write must wait for input (it is retried
    /// from `readTLS` when the socket turns readable).
    func writeTLS(_ c: Connection, _ t: TLSServerSession) -> IOResult? {
        let o = c.outbox.withUnsafeBytes { buf in
            t.write(buf.baseAddress! + c.outOffset, count: buf.count - c.outOffset)
        }
        switch o {
        case .done(let n): return .done(n)
        case .wantWrite: return .wouldBlock
        case .wantRead:
            t.writeWantsRead = true
            setInterest(c, presignd_EPOLLIN() | presignd_EPOLLRDHUP())
            return nil
        case .closed, .failed: return .failed(0)
        }
    }

    /// Queues `c` for `runTLSBuffered` when its input resumes while OpenSSL already holds input, which
    /// will not make the socket readable.
    func queueTLSBufferedInput(_ c: Connection) {
        guard let t = c.tls, !c.queuedTLSRead, t.hasBufferedInput else { return }
        c.queuedTLSRead = true
        tlsBuffered.append(c)
    }

    /// Reads the connections whose TLS session held input when their input resumed: level-triggered
    /// epoll cannot see bytes OpenSSL has already taken off the socket. One record each per iteration.
    func runTLSBuffered() {
        let list = tlsBuffered
        tlsBuffered.removeAll(keepingCapacity: true)
        for c in list {
            c.queuedTLSRead = false
            if c.machine.acceptsInput && c.armed & presignd_EPOLLIN() != 0 { onReadable(c) }
        }
    }
}
