import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// The outcome of one non-blocking syscall on a descriptor.
enum IOResult: Equatable {
    /// That many bytes moved (for reads, 0 is end of stream and reported as `.eof`).
    case done(Int)
    /// The call would block (`EAGAIN`/`EWOULDBLOCK`).
    case wouldBlock
    /// The peer closed its side (a read of 0 bytes).
    case eof
    /// Any other error, with its errno.
    case failed(Int32)
}

/// Every syscall of the server goes through here: `EINTR` is retried and `EAGAIN` is a value.
enum Sys {
    /// `read(2)` into `buffer`.
    static func read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> IOResult {
        while true {
            let n = Glibc.read(fd, buffer, count)
            if n > 0 { return .done(n) }
            if n == 0 { return .eof }
            let e = errno
            if e == EINTR { continue }
            if e == EAGAIN || e == EWOULDBLOCK { return .wouldBlock }
            return .failed(e)
        }
    }

    /// `write(2)` of `count` bytes; partial writes are reported as `.done(n)`.
    static func write(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> IOResult {
        while true {
            let n = Glibc.send(fd, buffer, count, Int32(MSG_NOSIGNAL))
            if n >= 0 { return .done(n) }
            let e = errno
            if e == EINTR { continue }
            if e == EAGAIN || e == EWOULDBLOCK { return .wouldBlock }
            return .failed(e)
        }
    }

    /// `accept4(2)` with non-blocking and close-on-exec set; returns the descriptor and the peer.
    static func accept(_ fd: Int32) -> (fd: Int32, peer: String)? {
        var storage = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        while true {
            let c = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    presignd_accept4(fd, $0, &len, presignd_SOCK_NONBLOCK() | presignd_SOCK_CLOEXEC())
                }
            }
            if c >= 0 { return (c, SocketAddress.describe(&storage)) }
            if errno == EINTR || errno == ECONNABORTED { continue }
            return nil
        }
    }

    /// `close(2)`; `EINTR` is not retried (Linux closes the descriptor anyway).
    static func close(_ fd: Int32) { _ = Glibc.close(fd) }

    /// Sets an integer socket option, ignoring failure (used for best-effort tuning).
    @discardableResult
    static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) -> Bool {
        var v = value
        return setsockopt(fd, level, name, &v, socklen_t(MemoryLayout<Int32>.size)) == 0
    }
}

/// Socket address helpers.
enum SocketAddress {
    /// "a.b.c.d:port" or "[v6]:port" for a peer address.
    static func describe(_ storage: inout sockaddr_storage) -> String {
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin -> String in
                    var addr = sin.pointee.sin_addr
                    var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
                    inet_ntop(AF_INET, &addr, &text, socklen_t(INET_ADDRSTRLEN))
                    let host = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    return host + ":" + String(UInt16(bigEndian: sin.pointee.sin_port))
                }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin -> String in
                    var addr = sin.pointee.sin6_addr
                    var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
                    inet_ntop(AF_INET6, &addr, &text, socklen_t(INET6_ADDRSTRLEN))
                    let host = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    return "[" + host + "]:" + String(UInt16(bigEndian: sin.pointee.sin6_port))
                }
            }
        default:
            return "unknown"
        }
    }
}
