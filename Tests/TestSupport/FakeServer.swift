import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A scripted HTTP/1.1 server on 127.0.0.1 (an ephemeral port) for the HTTP and S3 clients' tests.
///
/// Each request (its head and `Content-Length` body) is answered with what `script` returns for
/// its index (0-based, counted over all connections). Blocking sockets, one thread per connection.
public final class FakeServer: Sendable {
    /// What to do with one request.
    public enum Reply: Sendable {
        /// Send these bytes and keep the connection open.
        case respond(String)
        /// Send these bytes, then close the connection.
        case respondAndClose(String)
        /// Never answer (the connection stays open until the client or `stop` closes it).
        case hang
        /// Close the connection without answering.
        case close
    }

    /// What the server saw.
    private struct Record {
        var connections = 0
        var requests: [String] = []
        /// Client sockets still open (closed only under the lock, so a number is never reused
        /// while it is listed here).
        var clientSockets: Set<Int32> = []
        var stopped = false
        var listenerOpen = true
    }

    /// The port it listens on.
    public let port: Int
    /// The listening socket.
    private let listener: Int32
    /// The script.
    private let script: @Sendable (_ index: Int, _ request: String) -> Reply
    /// What was seen.
    private let record = Mutex(Record())

    /// Starts a server answering with `script`.
    public init(script: @escaping @Sendable (_ index: Int, _ request: String) -> Reply) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw FakeServerError.socket(errno) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw FakeServerError.socket(errno)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.port = Int(UInt16(bigEndian: address.sin_port))
        self.listener = fd
        self.script = script
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// Connections accepted so far.
    public var connections: Int { record.withLock { $0.connections } }

    /// The heads of the requests received so far, in order.
    public var requests: [String] { record.withLock { $0.requests } }

    /// Stops accepting and shuts every open connection down (their threads then close them).
    public func stop() {
        record.withLock { state in
            state.stopped = true
            if state.listenerOpen { shutdown(listener, Int32(SHUT_RDWR)) }
            for fd in state.clientSockets { shutdown(fd, Int32(SHUT_RDWR)) }
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
            let stopped = record.withLock { state -> Bool in
                state.connections += 1
                if state.stopped {
                    close(client)
                } else {
                    state.clientSockets.insert(client)
                }
                return state.stopped
            }
            if stopped { break }
            let thread = Thread { [self] in serve(client) }
            thread.start()
        }
        record.withLock { state in
            state.listenerOpen = false
            close(listener)
        }
    }

    /// Serves requests on one connection until either side closes it.
    private func serve(_ fd: Int32) {
        defer {
            record.withLock { state in
                state.clientSockets.remove(fd)
                close(fd)
            }
        }
        var buffer = [UInt8]()
        while true {
            guard let request = readRequest(fd, &buffer) else { return }
            let index = record.withLock { state -> Int in
                state.requests.append(request)
                return state.requests.count - 1
            }
            switch script(index, request) {
            case .respond(let text):
                guard sendAll(fd, Array(text.utf8)) else { return }
            case .respondAndClose(let text):
                _ = sendAll(fd, Array(text.utf8))
                return
            case .hang:
                var scratch = [UInt8](repeating: 0, count: 1024)
                while recv(fd, &scratch, scratch.count, 0) > 0 {}
                return
            case .close:
                return
            }
        }
    }

    /// Reads one request head and its `Content-Length` body; nil when the connection closed.
    private func readRequest(_ fd: Int32, _ buffer: inout [UInt8]) -> String? {
        let end = Array("\r\n\r\n".utf8)
        var scratch = [UInt8](repeating: 0, count: 4096)
        while true {
            if let range = buffer.firstRange(of: end) {
                let head = String(decoding: buffer[..<range.lowerBound], as: UTF8.self)
                var bodyLength = 0
                for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
                    bodyLength = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
                }
                let total = range.upperBound + bodyLength
                while buffer.count < total {
                    let count = recv(fd, &scratch, scratch.count, 0)
                    if count <= 0 { return nil }
                    buffer.append(contentsOf: scratch[..<count])
                }
                buffer.removeFirst(total)
                return head
            }
            let count = recv(fd, &scratch, scratch.count, 0)
            if count <= 0 { return nil }
            buffer.append(contentsOf: scratch[..<count])
        }
    }

    /// Sends all of `bytes`; false when the peer is gone.
    private func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }
}

/// A fake server's setup failure.
public enum FakeServerError: Error {
    /// A socket call failed with this errno.
    case socket(Int32)
}
