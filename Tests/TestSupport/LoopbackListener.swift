import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The one loopback listener of the test servers and proxies (`FakeServer`, `StandInServer`,
/// `FaultProxy`, `RecordingProxy`, PresignClientTests' `LoopbackServer`, ObjectStoreTests'
/// `EventListener`): 127.0.0.1 on an ephemeral port (or a given one), one thread accepting, one thread per
/// connection running `serve`. Blocking sockets.
///
/// `stop` stops accepting and shuts every open connection down; a connection's socket is closed under
/// the listener's lock after `serve` returns, so a descriptor number is never reused while listed.
public final class LoopbackListener: Sendable {
    /// What the listener holds.
    private struct State {
        var accepted = 0
        var open: Set<Int32> = []
        var stopped = false
        var listenerOpen = true
    }

    /// The port it listens on.
    public let port: Int
    /// The listening socket.
    private let listener: Int32
    /// What runs for each accepted connection.
    private let serve: @Sendable (_ connection: LoopbackConnection) -> Void
    /// Counts and open sockets.
    private let state = Mutex(State())

    /// Listens on 127.0.0.1 and `port` (0: an ephemeral one); `serve` runs on its own thread for each
    /// connection.
    public init(
        port: Int = 0, backlog: Int32 = 64, serve: @escaping @Sendable (_ connection: LoopbackConnection) -> Void
    ) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw LoopbackListenerError.socket(errno) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, backlog) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard ok else {
            let code = errno
            close(fd)
            throw LoopbackListenerError.socket(code)
        }
        self.port = Int(UInt16(bigEndian: address.sin_port))
        listener = fd
        self.serve = serve
        Thread { [self] in acceptLoop() }.start()
    }

    /// Connections accepted so far.
    public var accepted: Int { state.withLock { $0.accepted } }

    /// A port on 127.0.0.1 that was free a moment ago (bound to port 0, read, closed): for a server a test
    /// starts on a port it must know in advance. A port where nothing may listen is a `ClosedPort`.
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw LoopbackListenerError.socket(errno) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard ok else { throw LoopbackListenerError.socket(errno) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Stops accepting and shuts every open connection down (their threads then close them).
    public func stop() {
        state.withLock { state in
            state.stopped = true
            if state.listenerOpen { shutdown(listener, Int32(SHUT_RDWR)) }
            for fd in state.open { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    /// Stops accepting; connections in progress go on until their `serve` returns (the proxies' close).
    public func stopAccepting() {
        state.withLock { state in
            state.stopped = true
            if state.listenerOpen { shutdown(listener, Int32(SHUT_RDWR)) }
        }
    }

    /// Accepts connections until stopped.
    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                break
            }
            let stopped = state.withLock { state -> Bool in
                state.accepted += 1
                if state.stopped { close(client) } else { state.open.insert(client) }
                return state.stopped
            }
            if stopped { break }
            Thread { [self] in
                serve(LoopbackConnection(fd: client))
                state.withLock { state in
                    state.open.remove(client)
                    close(client)
                }
            }.start()
        }
        state.withLock { state in
            state.listenerOpen = false
            close(listener)
        }
    }
}

/// One blocking socket with a read buffer: the reads and writes every test server repeated.
public final class LoopbackConnection: @unchecked Sendable {
    /// The socket (owned by whoever made the connection: the listener closes accepted ones).
    public let fd: Int32
    /// Bytes received and not yet consumed.
    public var buffer: [UInt8] = []

    /// A connection over `fd`.
    public init(fd: Int32) { self.fd = fd }

    /// Reads once more into `buffer`; false at end of stream or on an error.
    @discardableResult
    public func fill() -> Bool { SocketIO.fill(fd, &buffer) }

    /// The offset just past the first `\r\n\r\n` of `buffer`, or nil.
    public func headEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for i in 0...(buffer.count - 4)
        where buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 {
            return i + 4
        }
        return nil
    }

    /// Reads until `buffer` holds a whole head; its end (see `headEnd`), or nil when the peer closed first.
    public func readHead() -> Int? {
        while true {
            if let end = headEnd() { return end }
            guard fill() else { return nil }
        }
    }

    /// Reads until `buffer` holds at least `count` bytes; false when the peer closed first.
    public func readUntil(count: Int) -> Bool {
        while buffer.count < count {
            guard fill() else { return false }
        }
        return true
    }

    /// One request framed by `Content-Length` (no transfer coding): its head's text (without the blank
    /// line) and body, both removed from `buffer`; nil when the peer closed first.
    public func readRequest() -> (head: String, body: [UInt8])? {
        guard let end = readHead() else { return nil }
        let head = String(decoding: buffer[..<(end - 4)], as: UTF8.self)
        var length = 0
        for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
            length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
        }
        guard readUntil(count: end + length) else { return nil }
        let body = Array(buffer[end..<(end + length)])
        buffer.removeFirst(end + length)
        return (head, body)
    }

    /// Sends all of `bytes`; false when the peer is gone.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool { SocketIO.writeAll(fd, bytes) }

    /// Sends `text` as UTF-8.
    @discardableResult
    public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Reads and drops everything until the peer closes (a server that never answers).
    public func drain() {
        var scratch = [UInt8](repeating: 0, count: 4096)
        while recv(fd, &scratch, scratch.count, 0) > 0 {}
    }
}

/// The listener's setup failure.
public enum LoopbackListenerError: Error, CustomStringConvertible {
    /// A socket call failed with this errno.
    case socket(Int32)

    /// The failed call's errno.
    public var description: String {
        switch self {
        case .socket(let code): return "loopback listener: socket call failed (errno \(code))"
        }
    }
}

/// What a test server saw, in arrival order (shared by the listener's connection threads).
public final class ArrivalLog<Item: Sendable>: Sendable {
    /// The items.
    private let items = Mutex<[Item]>([])

    /// An empty log.
    public init() {}

    /// Appends `item`; its index (0-based).
    public func append(_ item: Item) -> Int {
        items.withLock {
            $0.append(item)
            return $0.count - 1
        }
    }

    /// Everything so far.
    public var all: [Item] { items.withLock { $0 } }
}
