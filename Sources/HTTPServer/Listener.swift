import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// A listening TCP socket (non-blocking, `SO_REUSEPORT` so each event loop can own one on the same port).
/// Owns its descriptor: closed by `close()` or, at the latest, when the object goes away (so a server
/// whose set-up fails half-way leaves no socket bound). Used by one thread at a time.
final class Listener {
    /// The descriptor.
    let fd: Int32
    /// Whether `close()` ran.
    private var closed = false
    /// The port actually bound (useful when asked for port 0).
    let port: Int

    /// Binds and listens on `host:port`; `host` is an IPv4 or IPv6 literal.
    init(host: String, port: Int, backlog: Int32 = 4096) throws(ServerError) {
        var v4 = in_addr()
        var v6 = in6_addr()
        let isV4 = inet_pton(AF_INET, host, &v4) == 1
        let isV6 = !isV4 && inet_pton(AF_INET6, host, &v6) == 1
        guard isV4 || isV6 else { throw .invalidAddress(host) }
        let fd = socket(
            isV4 ? AF_INET : AF_INET6, Int32(SOCK_STREAM.rawValue) | presignd_SOCK_NONBLOCK() | presignd_SOCK_CLOEXEC(),
            0)
        guard fd >= 0 else { throw .socket("socket", errno) }
        Sys.setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
        Sys.setOption(fd, SOL_SOCKET, SO_REUSEPORT, 1)
        var rc: Int32
        if isV4 {
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = in_port_t(UInt16(port).bigEndian)
            sin.sin_addr = v4
            rc = withUnsafePointer(to: &sin) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        } else {
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = in_port_t(UInt16(port).bigEndian)
            sin6.sin6_addr = v6
            rc = withUnsafePointer(to: &sin6) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
        guard rc == 0 else {
            let e = errno
            Sys.close(fd)
            throw .socket("bind \(host):\(port)", e)
        }
        guard listen(fd, backlog) == 0 else {
            let e = errno
            Sys.close(fd)
            throw .socket("listen", e)
        }
        var storage = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        if Int32(storage.ss_family) == AF_INET {
            self.port = withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
        } else {
            self.port = withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin6_port))
                }
            }
        }
        self.fd = fd
    }

    deinit { close() }

    /// Closes the socket (new connections are then refused by the kernel); later calls do nothing.
    func close() {
        guard !closed else { return }
        closed = true
        Sys.close(fd)
    }
}
