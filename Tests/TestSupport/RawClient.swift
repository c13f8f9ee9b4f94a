import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A blocking TCP client that sends exact bytes and reads raw responses, for socket-level tests.
public final class RawClient {
    /// One response as read off the wire.
    public typealias Response = WireResponse

    /// The socket.
    public let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to `host:port` with a receive time-out of `timeoutMs`.
    public init(port: Int, host: String = "127.0.0.1", timeoutMs: Int = 5000) throws {
        guard let fd = SocketIO.connect(host: host, port: port) else {
            throw TestFailure("connect to \(port) failed: errno \(errno)")
        }
        self.fd = fd
        var tv = timeval(tv_sec: timeoutMs / 1000, tv_usec: Int((timeoutMs % 1000) * 1000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    /// The text of one request: `headers` are whole header lines ("Name: value\r\n"); a `body` goes with
    /// its length and, unless `contentType` is nil, that Content-Type.
    public static func request(
        _ method: String, _ target: String, host: String = "a", headers: String = "", body: String? = nil,
        contentType: String? = "application/json"
    ) -> String {
        var text = "\(method) \(target) HTTP/1.1\r\nHost: \(host)\r\n" + headers
        guard let body else { return text + "\r\n" }
        if let contentType { text += "Content-Type: \(contentType)\r\n" }
        return text + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }

    /// Sends `text` (as UTF-8) completely.
    public func send(_ text: String) { send(Array(text.utf8)) }

    /// Sends `bytes` completely; ignores errors (the peer may have closed: tests check responses).
    public func send(_ bytes: [UInt8]) {
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + off, $0.count - off, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            off += n
        }
    }

    /// Reads more bytes into the buffer; false on EOF, error or time-out.
    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = chunk.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress!, $0.count, 0) }
        if n <= 0 { return false }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }

    /// Reads one response (Content-Length framed; `isHead` skips the body; interim 1xx answers skipped).
    /// Nil on EOF, time-out or a status line that is none.
    public func readResponse(isHead: Bool = false) -> Response? {
        while true {
            switch WireResponse.parse(buffer[...], isHead: isHead) {
            case .response(let response, let consumed):
                buffer.removeFirst(consumed)
                if response.status < 200 { continue }
                return response
            case .invalid:
                return nil
            case .incomplete:
                if !fill() { return nil }
            }
        }
    }

    /// True when the server closes the connection (EOF or reset) within the receive time-out, with no
    /// further bytes. Bytes that arrive instead are kept and make this false.
    public func isClosedByPeer() -> Bool {
        if !buffer.isEmpty { return false }
        var b = [UInt8](repeating: 0, count: 4096)
        let n = b.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress!, $0.count, 0) }
        if n > 0 {
            buffer.append(contentsOf: b[0..<n])
            return false
        }
        if n == 0 { return true }
        return errno == ECONNRESET
    }

    /// Bytes received but not yet returned in a response.
    public var pendingBytes: Int { buffer.count }
}

/// A failure in test set-up, with a message.
public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ d: String) { description = d }
}
