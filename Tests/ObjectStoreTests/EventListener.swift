import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A loopback HTTP/1.1 listener standing in for the server's events endpoint: every POST is recorded and
/// answered with the status `answer` gives for it (0-based over the listener's whole life), one thread per
/// connection, blocking sockets. It can be stopped and started again on the same port (a push endpoint that
/// is down for a while).
final class EventListener: Sendable {
    /// One request as received.
    struct Delivery: Sendable {
        /// The request line.
        var requestLine: String
        /// The header fields, in order.
        var headers: [(name: String, value: String)]
        /// The body (by `Content-Length`).
        var body: [UInt8]
        /// The status it was answered with.
        var status: Int
    }

    /// What was received, and the open listening socket.
    private struct State {
        var deliveries: [Delivery] = []
        var socket: Int32 = -1
    }

    /// The port (fixed once the first start chose it).
    let port: Int
    /// The status for the n-th request.
    private let answer: @Sendable (Int) -> Int
    /// Everything received so far and the socket.
    private let state = Mutex(State())

    /// Listens on 127.0.0.1 and `port` (0: a free one), answering with `answer`.
    init(port: Int = 0, answer: @escaping @Sendable (Int) -> Int) throws {
        self.answer = answer
        let fd = try Self.listen(port: port)
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.port = Int(UInt16(bigEndian: address.sin_port))
        state.withLock { $0.socket = fd }
        acceptLoop(fd)
    }

    /// The requests received so far.
    var deliveries: [Delivery] { state.withLock { $0.deliveries } }

    /// The URL RGW pushes to.
    var url: String { "http://127.0.0.1:\(port)/events" }

    /// Stops listening: the port refuses connections until `start()`.
    func stop() {
        let fd = state.withLock { state -> Int32 in
            defer { state.socket = -1 }
            return state.socket
        }
        if fd >= 0 {
            shutdown(fd, Int32(SHUT_RDWR))
            close(fd)
        }
    }

    /// Listens again on the same port.
    func start() throws {
        let fd = try Self.listen(port: port)
        state.withLock { $0.socket = fd }
        acceptLoop(fd)
    }

    /// A listening socket on 127.0.0.1 and `port`.
    private static func listen(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, Glibc.listen(fd, 16) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        return fd
    }

    /// Accepts connections on `fd` until it is closed.
    private func acceptLoop(_ fd: Int32) {
        let thread = Thread { [self] in
            while true {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { return }
                let worker = Thread { [self] in serve(client) }
                worker.start()
            }
        }
        thread.start()
    }

    /// Reads requests from `client` and answers them, until it closes.
    private func serve(_ client: Int32) {
        defer { close(client) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            while Self.headEnd(buffer) == nil {
                let n = read(client, &chunk, chunk.count)
                guard n > 0 else { return }
                buffer += chunk[0..<n]
            }
            let end = Self.headEnd(buffer)!
            let head = String(decoding: buffer[0..<end], as: UTF8.self)
            var lines = head.components(separatedBy: "\r\n")
            let requestLine = lines.removeFirst()
            let headers = lines.compactMap { line -> (name: String, value: String)? in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            }
            let length = headers.first { $0.name.lowercased() == "content-length" }.flatMap { Int($0.value) } ?? 0
            while buffer.count < end + 4 + length {
                let n = read(client, &chunk, chunk.count)
                guard n > 0 else { return }
                buffer += chunk[0..<n]
            }
            let body = Array(buffer[(end + 4)..<(end + 4 + length)])
            buffer.removeFirst(end + 4 + length)
            let status = state.withLock { state -> Int in
                let status = answer(state.deliveries.count)
                state.deliveries.append(
                    Delivery(requestLine: requestLine, headers: headers, body: body, status: status))
                return status
            }
            let reply = Array("HTTP/1.1 \(status) X\r\nContent-Length: 0\r\n\r\n".utf8)
            guard write(client, reply, reply.count) == reply.count else { return }
        }
    }

    /// Where the head ends (the index of its blank line's CR).
    private static func headEnd(_ buffer: [UInt8]) -> Int? {
        guard buffer.count >= 4 else { return nil }
        for index in 0...(buffer.count - 4)
        where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
            return index
        }
        return nil
    }
}
