import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A scripted HTTP/1.1 stand-in for a credentials service (STS, a container agent, IMDS) on
/// 127.0.0.1 and an ephemeral port. Each request is answered with what `script` returns for it and
/// its index (0-based, over all connections). Blocking sockets, one thread per connection. (Also the
/// credentials stand-in of the App end-to-end tests.)
public final class StandInServer: Sendable {
    /// One request as received.
    public struct Request: Sendable {
        /// `GET`, `PUT`, `POST`.
        public var method: String
        /// The request target.
        public var target: String
        /// Header fields in order.
        public var headers: [(name: String, value: String)]
        /// The body (by `Content-Length`).
        public var body: String

        /// The first value of `name`, case-insensitive.
        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        /// The body as `application/x-www-form-urlencoded` pairs, percent-decoded.
        public var form: [String: String] {
            var pairs: [String: String] = [:]
            for pair in body.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let value = parts.count > 1 ? String(parts[1]) : ""
                pairs[String(parts[0])] = value.removingPercentEncoding ?? value
            }
            return pairs
        }
    }

    /// What to do with one request.
    public enum Reply: Sendable {
        /// Answer with this status, these extra headers and this body (keep-alive).
        case respond(Int, headers: [(String, String)] = [], body: String = "")
        /// Never answer (until the client gives up or the server stops).
        case hang
        /// Close the connection without answering.
        case close
    }

    /// What the server saw.
    private struct Record {
        public var requests: [Request] = []
        var clientSockets: Set<Int32> = []
        var stopped = false
        var listenerOpen = true
    }

    /// The port it listens on.
    public let port: Int
    /// The listening socket.
    private let listener: Int32
    /// The script.
    private let script: @Sendable (_ index: Int, _ request: Request) -> Reply
    /// What was seen.
    private let record = Mutex(Record())

    /// `http://127.0.0.1:<port>`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Requests received so far, in order.
    public var requests: [Request] { record.withLock { $0.requests } }

    /// Starts a stand-in answering with `script`.
    public init(script: @escaping @Sendable (_ index: Int, _ request: Request) -> Reply) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw StandInError.socket(errno) }
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
            throw StandInError.socket(errno)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        listener = fd
        self.script = script
        Thread { [self] in acceptLoop() }.start()
    }

    /// A stand-in that answers the `replies` in order (the last one again once they run out).
    public convenience init(replies: [Reply]) throws {
        try self.init { index, _ in replies[min(index, replies.count - 1)] }
    }

    /// Stops accepting and shuts every open connection down.
    public func stop() {
        record.withLock { state in
            state.stopped = true
            if state.listenerOpen { shutdown(listener, Int32(SHUT_RDWR)) }
            for fd in state.clientSockets { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    /// A JSON body's reply.
    public static func json(_ status: Int, _ body: String) -> Reply {
        .respond(status, headers: [("Content-Type", "application/json")], body: body)
    }

    /// An XML body's reply.
    public static func xml(_ status: Int, _ body: String) -> Reply {
        .respond(status, headers: [("Content-Type", "text/xml")], body: body)
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
                if state.stopped { close(client) } else { state.clientSockets.insert(client) }
                return state.stopped
            }
            if stopped { break }
            Thread { [self] in serve(client) }.start()
        }
        record.withLock { state in
            state.listenerOpen = false
            close(listener)
        }
    }

    /// Serves one connection until either side closes it.
    private func serve(_ fd: Int32) {
        defer {
            record.withLock { state in
                state.clientSockets.remove(fd)
                close(fd)
            }
        }
        var buffer = [UInt8]()
        while let request = readRequest(fd, &buffer) {
            let index = record.withLock { state -> Int in
                state.requests.append(request)
                return state.requests.count - 1
            }
            switch script(index, request) {
            case .respond(let status, let headers, let body):
                var text = "HTTP/1.1 \(status) Stand-in\r\nContent-Length: \(body.utf8.count)\r\n"
                for (name, value) in headers { text += "\(name): \(value)\r\n" }
                text += "\r\n" + body
                guard sendAll(fd, Array(text.utf8)) else { return }
            case .hang:
                var scratch = [UInt8](repeating: 0, count: 1024)
                while recv(fd, &scratch, scratch.count, 0) > 0 {}
                return
            case .close:
                return
            }
        }
    }

    /// Reads one request; nil when the connection closed.
    private func readRequest(_ fd: Int32, _ buffer: inout [UInt8]) -> Request? {
        let end = Array("\r\n\r\n".utf8)
        var scratch = [UInt8](repeating: 0, count: 4096)
        while true {
            if let range = buffer.firstRange(of: end) {
                let head = String(decoding: buffer[..<range.lowerBound], as: UTF8.self)
                var lines = head.components(separatedBy: "\r\n")
                let requestLine = lines.removeFirst().split(separator: " ")
                var headers: [(name: String, value: String)] = []
                var bodyLength = 0
                for line in lines {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    let name = String(line[..<colon])
                    let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                    headers.append((name, value))
                    if name.lowercased() == "content-length" { bodyLength = Int(value) ?? 0 }
                }
                let total = range.upperBound + bodyLength
                while buffer.count < total {
                    let count = recv(fd, &scratch, scratch.count, 0)
                    if count <= 0 { return nil }
                    buffer.append(contentsOf: scratch[..<count])
                }
                let body = String(decoding: buffer[range.upperBound..<total], as: UTF8.self)
                buffer.removeFirst(total)
                return Request(
                    method: requestLine.count > 0 ? String(requestLine[0]) : "",
                    target: requestLine.count > 1 ? String(requestLine[1]) : "", headers: headers, body: body)
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

/// A stand-in's setup failure.
public enum StandInError: Error {
    /// A socket call failed with this errno.
    case socket(Int32)
}
