import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A port on 127.0.0.1 held for as long as this value lives: a socket bound to an ephemeral port with
/// `SO_REUSEADDR` and never put in the listening state. While nothing else listens there a connection is
/// refused; no client's ephemeral port and no server binding port 0 can take it meanwhile (Linux skips a
/// port bound this way), unlike a port read from a closed socket (`LoopbackListener.freePort`), which
/// another process may take before the test connects. A `LoopbackListener` (it sets `SO_REUSEADDR` too)
/// may listen on the port while it is held, so a test server that goes down and up again keeps its port.
public final class ClosedPort: Sendable {
    /// The port.
    public let port: Int
    /// The bound socket, closed with this value.
    private let fd: Int32

    /// Binds 127.0.0.1:0 and keeps the socket.
    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw LoopbackListenerError.socket(errno) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard ok else {
            let code = errno
            close(fd)
            throw LoopbackListenerError.socket(code)
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(fd) }
}
