import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A loopback HTTP/1.1 proxy in front of a real server (RGW) that injects faults into chosen requests.
///
/// Every request read from a client is counted (from 1, across connections) and either forwarded on a
/// fresh upstream connection, its response passed back unchanged, or answered with the fault its rule
/// names: an S3 XML error status, a connection reset, a response cut off halfway, or a stall
/// before forwarding. Rules are matched in order; the first whose selector takes the request wins.
/// Requests with `Transfer-Encoding` are refused (the server's own S3 client always sends
/// `Content-Length`). Listens on 127.0.0.1 only; `close()` stops it.
public final class FaultProxy: @unchecked Sendable {
    /// What a chosen request gets instead of the upstream's answer.
    public enum Fault: Sendable, Equatable {
        /// An S3 error answer: the status and `<Error><Code>code</Code>…`, then the connection is kept.
        case status(Int, code: String)
        /// The connection is reset (SO_LINGER 0) without an answer.
        case reset
        /// The first half of the upstream's response (head and body), then the connection is closed.
        case cutShort
        /// Nothing for `milliseconds`, then the request is forwarded as usual.
        case stall(milliseconds: Int)
        /// Nothing until `releaseHeld()` (or `close()`), then the request is forwarded as usual: a stall
        /// that ends on the test's word, so the test can act while it lasts (`heldCount` says how many
        /// requests are held now).
        case hold
    }

    /// Which requests a rule takes.
    public enum Selector: Sendable, Equatable {
        /// Every request.
        case always
        /// The requests whose number (from 1) is in the set.
        case numbers(Set<Int>)
        /// Requests whose method is this one (`HEAD`, `PUT`, …).
        case method(String)
        /// About `percent` % of requests, decided by a seeded generator (repeatable).
        case share(percent: Int, seed: UInt64)
    }

    /// One rule: a selector and its fault.
    public struct Rule: Sendable, Equatable {
        /// The requests it takes.
        public var selector: Selector
        /// What they get.
        public var fault: Fault

        /// A rule giving `fault` to the requests `selector` takes.
        public init(_ selector: Selector, _ fault: Fault) {
            self.selector = selector
            self.fault = fault
        }
    }

    /// The port the proxy listens on (127.0.0.1).
    public var port: Int { listener.port }
    private let upstreamHost: String
    private let upstreamPort: Int
    /// The listener (TestSupport's one loopback listener).
    private var listener: LoopbackListener!
    private let lock = NSLock()
    private var rules: [Rule] = []
    private var count = 0
    private var faults = 0
    private var random = SplitMix64(seed: 1)
    private var closed = false
    private let holdCondition = NSCondition()
    private var held = 0
    private var holdGeneration = 0

    /// A proxy to `upstreamHost:upstreamPort`, listening on a free loopback port, forwarding everything.
    public init(upstreamHost: String, upstreamPort: Int) throws {
        self.upstreamHost = upstreamHost
        self.upstreamPort = upstreamPort
        listener = try LoopbackListener { [self] connection in
            setTimeout(connection.fd, seconds: 30)
            serve(connection.fd)
        }
    }

    deinit { close() }

    /// Replaces the rules (an empty list forwards everything) and reseeds the share selector.
    public func setRules(_ newRules: [Rule]) {
        lock.lock()
        rules = newRules
        for r in newRules {
            if case .share(_, let seed) = r.selector { random = SplitMix64(seed: seed) }
        }
        lock.unlock()
    }

    /// Requests read so far.
    public var requestCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }

    /// Requests that got a fault so far.
    public var faultCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return faults
    }

    /// Requests being held by a `.hold` rule now.
    public var heldCount: Int {
        holdCondition.lock()
        defer { holdCondition.unlock() }
        return held
    }

    /// Waits until `count` requests are held, up to `timeoutMs`; false if they were not.
    public func waitUntilHeld(_ count: Int, timeoutMs: Int = 60_000) -> Bool {
        let deadline = Date().addingTimeInterval(Double(timeoutMs) / 1000)
        holdCondition.lock()
        defer { holdCondition.unlock() }
        while held < count {
            if !holdCondition.wait(until: deadline) { return held >= count }
        }
        return true
    }

    /// Lets every request held now go on (to be forwarded); later ones are held again while the rule stays.
    public func releaseHeld() {
        holdCondition.lock()
        holdGeneration += 1
        holdCondition.broadcast()
        holdCondition.unlock()
    }

    /// Holds the calling connection's request until `releaseHeld()` or `close()`.
    private func hold() {
        holdCondition.lock()
        let generation = holdGeneration
        held += 1
        holdCondition.broadcast()
        while holdGeneration == generation { holdCondition.wait() }
        held -= 1
        holdCondition.broadcast()
        holdCondition.unlock()
    }

    /// Stops accepting; connections in progress end on their own (held requests are released).
    public func close() {
        lock.lock()
        let wasClosed = closed
        closed = true
        lock.unlock()
        releaseHeld()
        if !wasClosed { listener.stopAccepting() }
    }

    // MARK: - Serving

    /// The fault for the next request (and counts it).
    private func nextFault(method: String) -> Fault? {
        lock.lock()
        defer { lock.unlock() }
        count += 1
        for rule in rules {
            let taken: Bool
            switch rule.selector {
            case .always: taken = true
            case .numbers(let set): taken = set.contains(count)
            case .method(let m): taken = m == method
            case .share(let percent, _): taken = Int(random.next() % 100) < percent
            }
            if taken {
                faults += 1
                return rule.fault
            }
        }
        return nil
    }

    /// Serves one client connection (the listener closes it when this returns).
    private func serve(_ client: Int32) {
        var buffer: [UInt8] = []
        while true {
            guard let request = readMessage(client, &buffer, isResponse: false, headRequest: false) else { return }
            let method = String(decoding: request.head.prefix { $0 != UInt8(ascii: " ") }, as: UTF8.self)
            switch nextFault(method: method) {
            case .status(let status, let code)?:
                let body = Array(
                    "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>\(code)</Code><Message>injected by the fault proxy</Message></Error>"
                        .utf8)
                let head =
                    "HTTP/1.1 \(status) Injected\r\nContent-Type: application/xml\r\nContent-Length: \(body.count)\r\n\r\n"
                guard SocketIO.writeAll(client, Array(head.utf8) + (method == "HEAD" ? [] : body)) else { return }
                continue
            case .reset?:
                var l = linger(l_onoff: 1, l_linger: 0)
                setsockopt(client, SOL_SOCKET, SO_LINGER, &l, socklen_t(MemoryLayout<linger>.size))
                return
            case .stall(let ms)?:
                usleep(UInt32(ms) * 1000)
                guard forward(request.bytes, method: method, to: client, cutShort: false) else { return }
            case .hold?:
                hold()
                guard forward(request.bytes, method: method, to: client, cutShort: false) else { return }
            case .cutShort?:
                _ = forward(request.bytes, method: method, to: client, cutShort: true)
                return
            case nil:
                guard forward(request.bytes, method: method, to: client, cutShort: false) else { return }
            }
        }
    }

    /// Sends one request upstream on a fresh connection and passes its response back (or the head and
    /// half the body when `cutShort`). False when either side failed.
    private func forward(_ request: [UInt8], method: String, to client: Int32, cutShort: Bool) -> Bool {
        guard let upstream = SocketIO.connect(host: upstreamHost, port: upstreamPort) else { return false }
        defer { Glibc.close(upstream) }
        setTimeout(upstream, seconds: 30)
        guard SocketIO.writeAll(upstream, request) else { return false }
        var buffer: [UInt8] = []
        guard let response = readMessage(upstream, &buffer, isResponse: true, headRequest: method == "HEAD") else {
            return false
        }
        if cutShort {
            _ = SocketIO.writeAll(client, Array(response.bytes[..<(response.bytes.count / 2)]))
            return false
        }
        return SocketIO.writeAll(client, response.bytes)
    }

    // MARK: - Messages

    /// One message: its head (through the blank line) and all its bytes.
    private struct Message {
        var head: [UInt8]
        var bytes: [UInt8]
    }

    /// Reads one request or response framed by Content-Length (none: no body). Nil at EOF or on anything
    /// this proxy does not handle.
    private func readMessage(_ fd: Int32, _ buffer: inout [UInt8], isResponse: Bool, headRequest: Bool)
        -> Message?
    {
        var headEnd: Int?
        while headEnd == nil {
            if let e = Self.findHeadEnd(buffer) {
                headEnd = e
                break
            }
            guard SocketIO.fill(fd, &buffer) else { return nil }
        }
        let end = headEnd!
        let head = Array(buffer[..<end])
        let text = String(decoding: head, as: UTF8.self).lowercased()
        if text.contains("\r\ntransfer-encoding:") {
            // Requests with a transfer coding are not handled; a chunked response (RGW's answer to a
            // COPY) is passed on as it came, read through its last chunk.
            guard isResponse, !headRequest, text.contains("chunked") else { return nil }
            var at = end
            while true {
                var lineEnd: Int?
                while lineEnd == nil {
                    lineEnd = Self.findCRLF(buffer, from: at)
                    if lineEnd == nil { guard SocketIO.fill(fd, &buffer) else { return nil } }
                }
                let sizeText = String(decoding: buffer[at..<lineEnd!], as: UTF8.self).prefix { $0 != ";" }
                guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else { return nil }
                at = lineEnd! + 2
                if size == 0 {
                    // Trailers (normally none), up to the blank line.
                    while true {
                        var trailerEnd: Int?
                        while trailerEnd == nil {
                            trailerEnd = Self.findCRLF(buffer, from: at)
                            if trailerEnd == nil { guard SocketIO.fill(fd, &buffer) else { return nil } }
                        }
                        let blank = trailerEnd! == at
                        at = trailerEnd! + 2
                        if blank { break }
                    }
                    break
                }
                while buffer.count < at + size + 2 { guard SocketIO.fill(fd, &buffer) else { return nil } }
                at += size + 2
            }
            let bytes = Array(buffer[..<at])
            buffer.removeFirst(at)
            return Message(head: head, bytes: bytes)
        }
        var length = 0
        if let range = text.range(of: "\r\ncontent-length:") {
            // By bytes: in Swift "\r\n" is one Character, so a Character test for "\r" never stops at the line end.
            let digits = String(decoding: text[range.upperBound...].utf8.prefix { $0 != 13 }, as: UTF8.self)
                .trimmingCharacters(in: .whitespaces)
            length = Int(digits) ?? 0
        }
        if headRequest { length = 0 }
        if isResponse, let status = Int(text.dropFirst(9).prefix(3)), status == 204 || status == 304 { length = 0 }
        while buffer.count < end + length {
            guard SocketIO.fill(fd, &buffer) else { return nil }
        }
        let bytes = Array(buffer[..<(end + length)])
        buffer.removeFirst(end + length)
        return Message(head: head, bytes: bytes)
    }

    /// The index of the first CR LF at or after `from`.
    private static func findCRLF(_ b: [UInt8], from: Int) -> Int? {
        guard b.count >= from + 2 else { return nil }
        for i in from...(b.count - 2) where b[i] == 13 && b[i + 1] == 10 { return i }
        return nil
    }

    private static func findHeadEnd(_ b: [UInt8]) -> Int? {
        guard b.count >= 4 else { return nil }
        for i in 0...(b.count - 4) where b[i] == 13 && b[i + 1] == 10 && b[i + 2] == 13 && b[i + 3] == 10 {
            return i + 4
        }
        return nil
    }

    private func setTimeout(_ fd: Int32, seconds: Int) {
        var tv = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }
}
