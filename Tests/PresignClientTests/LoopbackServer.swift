import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 for the client's unit tests: one thread per connection,
/// requests framed by Content-Length, keep-alive, every request handed to `handler`.
final class LoopbackServer: @unchecked Sendable {
    struct Request: Sendable {
        var method: String
        /// The request target exactly as received (path and query).
        var target: String
        var headers: [String: String]
        var body: [UInt8]

        var path: String { String(target.prefix { $0 != "?" }) }

        /// A query parameter's raw (still percent-encoded) value.
        func query(_ name: String) -> String? {
            guard let q = target.firstIndex(of: "?") else { return nil }
            for pair in target[target.index(after: q)...].split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1)
                if kv.first.map(String.init) == name { return kv.count > 1 ? String(kv[1]) : "" }
            }
            return nil
        }

        func header(_ name: String) -> String? { headers[name.lowercased()] }
    }

    struct Response: Sendable {
        var status: Int
        var headers: [String: String] = [:]
        var body: [UInt8] = []

        static func json(_ status: Int, _ text: String) -> Response {
            Response(status: status, headers: ["Content-Type": "application/json"], body: Array(text.utf8))
        }

        static func xmlError(_ status: Int, _ code: String) -> Response {
            Response(
                status: status, headers: ["Content-Type": "application/xml"],
                body: Array("<?xml version=\"1.0\"?><Error><Code>\(code)</Code><Message>m</Message></Error>".utf8))
        }
    }

    let port: Int
    private let fd: Int32
    private let handler: @Sendable (Request) -> Response
    private let lock = NSLock()
    private var closed = false

    init(handler: @escaping @Sendable (Request) -> Response) throws {
        self.handler = handler
        let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr)
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(s, $0, len) == 0 && listen(s, 64) == 0 && getsockname(s, $0, &len) == 0
            }
        }
        guard ok else {
            Glibc.close(s)
            throw LoopbackError("cannot listen: \(errno)")
        }
        fd = s
        port = Int(UInt16(bigEndian: sin.sin_port))
        let t = Thread { [self] in acceptLoop() }
        t.start()
    }

    deinit { close() }

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    func close() {
        lock.lock()
        let was = closed
        closed = true
        lock.unlock()
        if !was {
            shutdown(fd, Int32(SHUT_RDWR))
            Glibc.close(fd)
        }
    }

    private func acceptLoop() {
        while true {
            let c = accept(fd, nil, nil)
            if c < 0 {
                if errno == EINTR { continue }
                return
            }
            let t = Thread { [self] in serve(c) }
            t.start()
        }
    }

    private func serve(_ c: Int32) {
        defer { Glibc.close(c) }
        var buffer: [UInt8] = []
        while true {
            var headEnd: Int?
            while headEnd == nil {
                headEnd = Self.find(buffer)
                if headEnd == nil && !fill(c, &buffer) { return }
            }
            let head = String(decoding: buffer[..<headEnd!], as: UTF8.self)
            var lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
            let requestLine = lines.removeFirst().split(separator: " ")
            guard requestLine.count >= 2 else { return }
            var headers: [String: String] = [:]
            for l in lines {
                guard let colon = l.firstIndex(of: ":") else { continue }
                headers[l[..<colon].lowercased()] = l[l.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            if headers["transfer-encoding"] != nil { return }
            if headers["expect"]?.lowercased() == "100-continue" {
                _ = write(c, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
            }
            let length = Int(headers["content-length"] ?? "0") ?? 0
            while buffer.count < headEnd! + length {
                if !fill(c, &buffer) { return }
            }
            let body = Array(buffer[headEnd!..<(headEnd! + length)])
            buffer.removeFirst(headEnd! + length)
            let request = Request(
                method: String(requestLine[0]), target: String(requestLine[1]), headers: headers, body: body)
            let r = handler(request)
            var text = "HTTP/1.1 \(r.status) X\r\nContent-Length: \(r.body.count)\r\n"
            for (k, v) in r.headers { text += "\(k): \(v)\r\n" }
            text += "\r\n"
            guard write(c, Array(text.utf8) + r.body) else { return }
        }
    }

    private static func find(_ b: [UInt8]) -> Int? {
        guard b.count >= 4 else { return nil }
        for i in 0...(b.count - 4) where b[i] == 13 && b[i + 1] == 10 && b[i + 2] == 13 && b[i + 3] == 10 {
            return i + 4
        }
        return nil
    }

    private func fill(_ c: Int32, _ buffer: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = chunk.withUnsafeMutableBytes { recv(c, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return false }
        buffer.append(contentsOf: chunk[..<n])
        return true
    }

    private func write(_ c: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { send(c, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            sent += n
        }
        return true
    }
}

struct LoopbackError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
