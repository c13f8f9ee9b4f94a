import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// A connected non-blocking TCP socket, used through blocking calls bounded by a `Deadline`.
///
/// Every syscall goes through here and retries `EINTR`; `EAGAIN` waits in `poll` until the
/// deadline. Not an owner: `ClientConnection` closes the descriptor.
struct Socket {
    /// The descriptor.
    let fd: Int32
    /// `host:port`, for error messages.
    let peer: String

    /// Connects to `address`, trying each resolved address in turn until `deadline`.
    static func connect(to address: ServerAddress, deadline: Deadline) throws(HTTPClientError) -> Socket {
        let peer = "\(address.host):\(address.port)"
        // IP literals need no lookup; names go through the resolver, bounded by the deadline.
        let addresses: [ResolvedAddress]
        if address.isIPLiteral {
            addresses = try HostResolver.systemLookup(host: address.bareHost, port: address.port, numeric: true).get()
        } else {
            addresses = try HostResolver.shared.resolve(host: address.bareHost, port: address.port, deadline: deadline)
        }
        var lastError = "no address"
        for entry in addresses {
            if deadline.hasPassed { break }
            let fd = Glibc.socket(
                entry.family,
                Int32(SOCK_STREAM.rawValue) | presignd_SOCK_NONBLOCK() | presignd_SOCK_CLOEXEC(),
                0)
            guard fd >= 0 else {
                lastError = describe(errno: errno)
                continue
            }
            var result = entry.bytes.withUnsafeBytes { raw in
                Glibc.connect(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
            }
            // A non-blocking connect interrupted by a signal goes on in the background, as EINPROGRESS.
            if result != 0 && (errno == EINPROGRESS || errno == EINTR) {
                let socket = Socket(fd: fd, peer: peer)
                switch socket.wait(for: Int16(POLLOUT), until: deadline) {
                case .ready:
                    var code: Int32 = 0
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    result = getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) == 0 && code == 0 ? 0 : -1
                    if code != 0 { errno = code }
                case .timedOut:
                    _ = Glibc.close(fd)
                    throw .timeout("connect to \(peer) timed out")
                case .failed(let code):
                    errno = code
                    result = -1
                }
            }
            if result == 0 {
                var one: Int32 = 1
                _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                return Socket(fd: fd, peer: peer)
            }
            lastError = describe(errno: errno)
            _ = Glibc.close(fd)
        }
        if deadline.hasPassed { throw .timeout("connect to \(peer) timed out") }
        throw .connection("connect to \(peer): \(lastError)")
    }

    /// The outcome of waiting for readiness.
    enum Readiness {
        /// The descriptor is ready (or has an error or hang-up to report on the next call).
        case ready
        /// The deadline passed first.
        case timedOut
        /// `poll` itself failed, with this errno.
        case failed(Int32)
    }

    /// Waits until `events` (POLLIN, POLLOUT) are ready or `deadline` passes.
    func wait(for events: Int16, until deadline: Deadline) -> Readiness {
        while true {
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let timeout = deadline.remainingMilliseconds
            let result = poll(&entry, 1, timeout)
            if result > 0 { return .ready }
            if result == 0 {
                if deadline.hasPassed { return .timedOut }
                continue
            }
            if errno == EINTR { continue }
            return .failed(errno)
        }
    }

    /// True when `poll` reports the socket readable (data, end of stream or an error) right now.
    var isReadableNow: Bool {
        while true {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let result = poll(&entry, 1, 0)
            if result >= 0 { return result > 0 }
            if errno != EINTR { return true }
        }
    }

    /// Sends all of `bytes` before `deadline` (`MSG_NOSIGNAL`: a closed peer is an error, not SIGPIPE).
    func send(_ bytes: UnsafeRawBufferPointer, until deadline: Deadline) throws(HTTPClientError) {
        var offset = 0
        while offset < bytes.count {
            let sent = Glibc.send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if sent >= 0 {
                offset += sent
                continue
            }
            let code = errno
            if code == EINTR { continue }
            guard code == EAGAIN || code == EWOULDBLOCK else {
                throw .connection("send to \(peer): \(Self.describe(errno: code))")
            }
            switch wait(for: Int16(POLLOUT), until: deadline) {
            case .ready: continue
            case .timedOut: throw .timeout("sending the request to \(peer) timed out")
            case .failed(let code): throw .connection("poll: \(Self.describe(errno: code))")
            }
        }
    }

    /// Receives up to `buffer.count` bytes before `deadline`; 0 means the peer closed its side.
    func receive(into buffer: UnsafeMutableRawBufferPointer, until deadline: Deadline) throws(HTTPClientError) -> Int {
        while true {
            let received = recv(fd, buffer.baseAddress!, buffer.count, 0)
            if received >= 0 { return received }
            let code = errno
            if code == EINTR { continue }
            guard code == EAGAIN || code == EWOULDBLOCK else {
                throw .connection("receive from \(peer): \(Self.describe(errno: code))")
            }
            switch wait(for: Int16(POLLIN), until: deadline) {
            case .ready: continue
            case .timedOut: throw .timeout("no response from \(peer) in time")
            case .failed(let code): throw .connection("poll: \(Self.describe(errno: code))")
            }
        }
    }

    /// Closes the descriptor (`EINTR` is not retried: Linux has closed it anyway).
    func close() { _ = Glibc.close(fd) }

    /// `strerror` text for `errno`.
    static func describe(errno code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }
}
