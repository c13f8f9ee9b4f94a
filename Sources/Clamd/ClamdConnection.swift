import System

#if canImport(Glibc)
    import Glibc
#endif

/// One blocking stream socket to clamd, every call bounded by the scan's deadline (monotonic ns): the
/// socket is non-blocking and each call waits in `poll` for what remains.
final class ClamdConnection {
    /// The descriptor.
    private let fd: Int32
    /// The deadline of every call.
    private let deadline: UInt64
    /// The address, for messages.
    private let peer: String

    private init(fd: Int32, deadline: UInt64, peer: String) {
        self.fd = fd
        self.deadline = deadline
        self.peer = peer
    }

    /// Connects to `address` by `deadline`.
    static func open(_ address: ClamdAddress, deadline: UInt64) throws(ClamdError) -> ClamdConnection {
        switch address {
        case .unix(let path):
            var storage = sockaddr_un()
            storage.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            withUnsafeMutableBytes(of: &storage.sun_path) { raw in
                for (i, byte) in bytes.prefix(raw.count - 1).enumerated() { raw[i] = byte }
            }
            return try connect(
                family: AF_UNIX, peer: address.description, deadline: deadline,
                address: withUnsafeBytes(of: &storage) { Array($0) })
        case .tcp(let host, let port):
            var hints = addrinfo()
            hints.ai_family = AF_UNSPEC
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            let status = getaddrinfo(host, String(port), &hints, &list)
            guard status == 0, let first = list else {
                throw .unreachable("cannot resolve \(host): \(String(cString: gai_strerror(status)))")
            }
            defer { freeaddrinfo(list) }
            var lastError = ClamdError.unreachable("no address for \(host)")
            var entry: UnsafeMutablePointer<addrinfo>? = first
            while let current = entry {
                let bytes = Array(
                    UnsafeRawBufferPointer(start: current.pointee.ai_addr, count: Int(current.pointee.ai_addrlen)))
                do throws(ClamdError) {
                    return try connect(
                        family: current.pointee.ai_family, peer: address.description, deadline: deadline,
                        address: bytes)
                } catch {
                    lastError = error
                    if case .timeout = error { throw error }
                }
                entry = current.pointee.ai_next
            }
            throw lastError
        }
    }

    /// A non-blocking connect of a new socket of `family` to the socket address `address`.
    private static func connect(family: Int32, peer: String, deadline: UInt64, address: [UInt8])
        throws(ClamdError) -> ClamdConnection
    {
        let fd = socket(
            family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .unreachable("socket: \(describe(errno))") }
        let connection = ClamdConnection(fd: fd, deadline: deadline, peer: peer)
        let result = address.withUnsafeBytes { raw in
            Glibc.connect(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
        }
        if result != 0 {
            guard errno == EINPROGRESS || errno == EINTR || errno == EAGAIN else {
                let code = errno
                connection.close()
                throw .unreachable("connect to \(peer): \(describe(code))")
            }
            do throws(ClamdError) {
                try connection.wait(Int16(POLLOUT), doing: "connect")
            } catch {
                connection.close()
                throw error
            }
            var code: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            if getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) != 0 || code != 0 {
                connection.close()
                throw .unreachable("connect to \(peer): \(describe(code))")
            }
        }
        return connection
    }

    /// Sends all of `bytes` (`MSG_NOSIGNAL`: a closed peer is an error, not SIGPIPE).
    func send(_ bytes: [UInt8]) throws(ClamdError) {
        let failure = bytes.withUnsafeBytes { (raw) -> ClamdError? in
            do throws(ClamdError) {
                try send(raw)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    /// Sends all of `bytes`.
    func send(_ bytes: UnsafeRawBufferPointer) throws(ClamdError) {
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
                throw .unreachable("send to \(peer): \(Self.describe(code))")
            }
            try wait(Int16(POLLOUT), doing: "sending")
        }
    }

    /// Reads the reply up to its NUL (or the end of the stream), at most 4 KiB.
    func readReply() throws(ClamdError) -> String {
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while reply.count < 4096 {
            let received = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if received > 0 {
                let piece = buffer[0..<received]
                if let end = piece.firstIndex(of: 0) {
                    reply += piece[..<end]
                    return String(decoding: reply, as: UTF8.self)
                }
                reply += piece
                continue
            }
            if received == 0 {
                guard !reply.isEmpty else { throw .unreachable("\(peer) closed the connection without a reply") }
                return String(decoding: reply, as: UTF8.self)
            }
            let code = errno
            if code == EINTR { continue }
            guard code == EAGAIN || code == EWOULDBLOCK else {
                throw .unreachable("receive from \(peer): \(Self.describe(code))")
            }
            try wait(Int16(POLLIN), doing: "waiting for the verdict")
        }
        throw .protocolError("a reply longer than 4096 bytes")
    }

    /// Waits until `events` are ready, or throws `.timeout` at the deadline.
    private func wait(_ events: Int16, doing what: String) throws(ClamdError) {
        while true {
            let now = MonotonicClock.nanoseconds()
            guard now < deadline else { throw .timeout("\(what) (\(peer))") }
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let millis = Int32(clamping: (deadline - now + 999_999) / 1_000_000)
            let result = poll(&entry, 1, millis)
            if result > 0 { return }
            if result < 0 && errno != EINTR { throw .unreachable("poll: \(Self.describe(errno))") }
        }
    }

    /// Closes the descriptor.
    func close() { _ = Glibc.close(fd) }

    /// `strerror` text of `code`.
    static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }
}
