import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A loopback HTTP/1.1 proxy that records the request line and headers of every request it forwards
/// (byte for byte, as the client sent them) and passes requests and responses through unchanged: the
/// witness that what reached storage is exactly what a client was given. Put it in front of RGW (or
/// of a FaultProxy) and make it the server's `s3.publicEndpoint`. Requests must be framed by
/// Content-Length (the body may come after the head, as URLSession sends it); each is forwarded on a
/// fresh upstream connection. `inject` can fail or hold chosen requests.
public final class RecordingProxy: @unchecked Sendable {
    /// One request as it arrived.
    public struct Seen: Sendable, Equatable {
        /// The method (`PUT`, `GET`, …).
        public var method: String
        /// The request target, byte for byte (path and query, percent-encoding untouched).
        public var target: String
        /// The header lines, as sent.
        public var headerLines: [String]
        /// The body's length.
        public var bodyLength: Int
        /// The status the upstream answered (0 when it did not answer).
        public var status: Int
    }

    /// What a request may get instead of being forwarded at once (for tests that also need a fault
    /// while they watch the bytes: FaultProxy reads request bodies only when they come with the head).
    public enum Injection: Sendable, Equatable {
        /// An S3 XML error answer (`<Error><Code>code</Code>`), the connection kept.
        case status(Int, code: String)
        /// Held for `milliseconds` after the whole request was read, then forwarded.
        case stall(milliseconds: Int)
        /// Forwarded with the first byte of its body changed (bytes damaged on the way: storage sees
        /// another body under the same headers, e.g. a signed `Content-MD5` that no longer matches).
        case corruptBody
    }

    /// The port the proxy listens on (127.0.0.1).
    public var port: Int { listener.port }
    private var rule: @Sendable (_ number: Int, _ method: String) -> Injection? = { _, _ in nil }
    private var count = 0
    private var injected = 0
    private let upstreamHost: String
    private let upstreamPort: Int
    /// The listener (TestSupport's one loopback listener).
    private var listener: LoopbackListener!
    private let lock = NSLock()
    private var seen: [Seen] = []
    private var closed = false

    /// A proxy to `upstreamHost:upstreamPort` on a free loopback port.
    public init(upstreamHost: String, upstreamPort: Int) throws {
        self.upstreamHost = upstreamHost
        self.upstreamPort = upstreamPort
        listener = try LoopbackListener { [self] connection in
            Self.setTimeout(connection.fd)
            serve(connection.fd)
        }
    }

    deinit { close() }

    /// Every request forwarded so far, in arrival order.
    public var requests: [Seen] {
        lock.lock()
        defer { lock.unlock() }
        return seen
    }

    /// Sets the rule that picks injections by request number (from 1, across connections) and method;
    /// nil forwards the request.
    public func inject(_ newRule: @escaping @Sendable (_ number: Int, _ method: String) -> Injection?) {
        lock.lock()
        rule = newRule
        lock.unlock()
    }

    /// Requests that got an injection so far.
    public var injectedCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return injected
    }

    /// Stops accepting; connections in progress end on their own.
    public func close() {
        lock.lock()
        let wasClosed = closed
        closed = true
        lock.unlock()
        if !wasClosed { listener.stopAccepting() }
    }

    /// Serves one client connection (the listener closes it when this returns).
    private func serve(_ client: Int32) {
        var buffer: [UInt8] = []
        while true {
            guard let (head, bytes) = Self.readMessage(client, &buffer, isResponse: false, method: "") else { return }
            var lines: [String] = []
            var start = 0
            for i in 0..<max(0, head.count - 1) where head[i] == 13 && head[i + 1] == 10 {
                if i > start { lines.append(String(decoding: head[start..<i], as: UTF8.self)) }
                start = i + 2
            }
            let requestLine = lines.first?.split(separator: " ", omittingEmptySubsequences: false) ?? []
            guard requestLine.count == 3 else { return }
            var entry = Seen(
                method: String(requestLine[0]), target: String(requestLine[1]), headerLines: Array(lines.dropFirst()),
                bodyLength: bytes.count - head.count, status: 0)
            lock.lock()
            count += 1
            let injection = rule(count, entry.method)
            if injection != nil { injected += 1 }
            lock.unlock()
            var response: [UInt8]?
            switch injection {
            case .status(let status, let code)?:
                let body =
                    "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>\(code)</Code><Message>injected by the recording proxy</Message></Error>"
                response = Array(
                    ("HTTP/1.1 \(status) Injected\r\nContent-Type: application/xml\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
                        + body).utf8)
            case .stall(let ms)?:
                usleep(UInt32(ms) * 1000)
                response = forward(bytes, method: entry.method)
            case .corruptBody?:
                var damaged = bytes
                if damaged.count > head.count { damaged[head.count] ^= 0xFF }
                response = forward(damaged, method: entry.method)
            case nil:
                response = forward(bytes, method: entry.method)
            }
            if let response {
                entry.status = Int(String(decoding: response.prefix(12).dropFirst(9), as: UTF8.self)) ?? 0
            }
            lock.lock()
            seen.append(entry)
            lock.unlock()
            guard let response, SocketIO.writeAll(client, response) else { return }
        }
    }

    private func forward(_ request: [UInt8], method: String) -> [UInt8]? {
        guard let upstream = SocketIO.connect(host: upstreamHost, port: upstreamPort) else { return nil }
        defer { Glibc.close(upstream) }
        Self.setTimeout(upstream)
        guard SocketIO.writeAll(upstream, request) else { return nil }
        var buffer: [UInt8] = []
        return Self.readMessage(upstream, &buffer, isResponse: true, method: method)?.1
    }

    /// One message framed by Content-Length: its head and all its bytes (nil at EOF, or chunked).
    private static func readMessage(_ fd: Int32, _ buffer: inout [UInt8], isResponse: Bool, method: String)
        -> ([UInt8], [UInt8])?
    {
        var end: Int?
        while end == nil {
            end = findHeadEnd(buffer)
            if end == nil && !SocketIO.fill(fd, &buffer) { return nil }
        }
        let head = Array(buffer[..<end!])
        // Header lines split on CRLF as bytes (a Swift String holds "\r\n" as one Character).
        var lines: [String] = []
        var start = 0
        for i in 0..<max(0, head.count - 1) where head[i] == 13 && head[i + 1] == 10 {
            lines.append(String(decoding: head[start..<i], as: UTF8.self).lowercased())
            start = i + 2
        }
        var length = 0
        for line in lines.dropFirst() {
            if line.hasPrefix("transfer-encoding:") { return nil }
            if line.hasPrefix("content-length:") {
                length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
            }
        }
        if isResponse {
            let status = Int((lines.first ?? "").dropFirst(9).prefix(3)) ?? 0
            if method == "HEAD" || status == 204 || status == 304 { length = 0 }
        }
        while buffer.count < end! + length {
            if !SocketIO.fill(fd, &buffer) { return nil }
        }
        let bytes = Array(buffer[..<(end! + length)])
        buffer.removeFirst(end! + length)
        return (head, bytes)
    }

    private static func findHeadEnd(_ b: [UInt8]) -> Int? {
        guard b.count >= 4 else { return nil }
        for i in 0...(b.count - 4) where b[i] == 13 && b[i + 1] == 10 && b[i + 2] == 13 && b[i + 3] == 10 {
            return i + 4
        }
        return nil
    }

    private static func setTimeout(_ fd: Int32) {
        var tv = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }
}
