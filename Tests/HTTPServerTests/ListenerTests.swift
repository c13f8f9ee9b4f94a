import Testing

@testable import HTTPServer

#if canImport(Glibc)
    import Glibc
#endif

/// The listening socket owns its descriptor: released when the object goes away, closed only once.
@Suite struct ListenerTests {
    /// Binds a plain socket (no SO_REUSEADDR / SO_REUSEPORT) to 127.0.0.1:`port` and listens; the errno
    /// of the first step that fails, or 0. The socket is closed again.
    func exclusiveBind(port: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return errno }
        defer { Glibc.close(fd) }
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_port = in_port_t(UInt16(port).bigEndian)
        sin.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard rc == 0 else { return errno }
        return listen(fd, 1) == 0 ? 0 : errno
    }

    @Test func aListenerThatGoesAwayReleasesItsPort() throws {
        var listener: Listener? = try Listener(host: "127.0.0.1", port: 0)
        let port = listener!.port
        #expect(exclusiveBind(port: port) == EADDRINUSE)
        listener = nil  // as when a server's set-up fails after binding some of its listeners
        #expect(exclusiveBind(port: port) == 0)
    }

    @Test func closingTwiceClosesTheDescriptorOnce() throws {
        var listener: Listener? = try Listener(host: "127.0.0.1", port: 0)
        listener!.close()
        listener!.close()
        // The lowest free descriptor is reused: usually the listener's old number. A second close (or
        // one in deinit) would close this socket, which belongs to someone else by then.
        let other = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { Glibc.close(other) }
        listener = nil
        #expect(fcntl(other, F_GETFD) != -1)
    }
}
