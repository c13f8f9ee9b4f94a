import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// The event loop's timers, lingering and graceful drain.
extension EventLoop {
    /// The 100 ms scan: closes connections past their deadlines, answering 408 to a late body.
    func checkTimers() {
        let now = clock.monoMs
        var expired: [(Connection, Bool)] = []  // (connection, answer 408 first)
        for c in connections.values {
            switch c.machine.timerFired(nowMs: now, writePending: c.writePending) {
            case .close: expired.append((c, false))
            case .respondTimeout: expired.append((c, true))
            default: break
            }
        }
        for (c, answersTimeout) in expired {
            if answersTimeout, let p = c.pendingBody {
                c.pendingBody = nil
                respond(
                    c, answer(.bodyTimeout, p.route.errorRenderer), head: p.head, route: p.route.template,
                    requestId: p.requestId, startNanos: p.startNanos,
                    mustClose: true)
                flush(c)
            } else {
                close(c)
            }
        }
    }

    /// Starts a graceful drain on this loop: stop accepting, close idle connections, close the rest
    /// after their current response; the loop ends when none are left or at the drain deadline.
    func beginDrain() {
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

    /// Shuts the write side and discards input until the machine's lingering deadline, so the client
    /// reads the response before the kernel would reset the connection over unread data.
    func startLingering(_ c: Connection) {
        c.tls?.sendCloseNotify()
        shutdown(c.fd, Int32(SHUT_WR))
        c.inbox = []
        c.pendingBody = nil
        setInterest(c, presignd_EPOLLIN() | presignd_EPOLLRDHUP())
    }
}
