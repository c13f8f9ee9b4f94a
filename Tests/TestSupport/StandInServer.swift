import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A scripted HTTP/1.1 stand-in for a credentials service (STS, a container agent, IMDS) on
/// 127.0.0.1 and an ephemeral port. Each request is answered with what `script` returns for it and
/// its index (0-based, over all connections). A thin layer over `LoopbackListener`. (Also the
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

    /// The listener.
    private let listener: LoopbackListener
    /// The requests received so far.
    private let seen: ArrivalLog<Request>

    /// The port it listens on.
    public var port: Int { listener.port }

    /// `http://127.0.0.1:<port>`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Requests received so far, in order.
    public var requests: [Request] { seen.all }

    /// Starts a stand-in answering with `script` (a thin layer over `LoopbackListener`).
    public init(script: @escaping @Sendable (_ index: Int, _ request: Request) -> Reply) throws {
        let seen = ArrivalLog<Request>()
        self.seen = seen
        listener = try LoopbackListener(backlog: 16) { connection in
            while let (head, body) = connection.readRequest() {
                let request = StandInServer.request(head: head, body: body)
                let index = seen.append(request)
                switch script(index, request) {
                case .respond(let status, let headers, let body):
                    var text = "HTTP/1.1 \(status) Stand-in\r\nContent-Length: \(body.utf8.count)\r\n"
                    for (name, value) in headers { text += "\(name): \(value)\r\n" }
                    text += "\r\n" + body
                    guard connection.send(text) else { return }
                case .hang:
                    connection.drain()
                    return
                case .close:
                    return
                }
            }
        }
    }

    /// A request from its head's text and its body.
    static func request(head: String, body: [UInt8]) -> Request {
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append(
                (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        return Request(
            method: requestLine.count > 0 ? String(requestLine[0]) : "",
            target: requestLine.count > 1 ? String(requestLine[1]) : "", headers: headers,
            body: String(decoding: body, as: UTF8.self))
    }

    /// A stand-in that answers the `replies` in order (the last one again once they run out).
    public convenience init(replies: [Reply]) throws {
        try self.init { index, _ in replies[min(index, replies.count - 1)] }
    }

    /// Stops accepting and shuts every open connection down.
    public func stop() { listener.stop() }

    /// A JSON body's reply.
    public static func json(_ status: Int, _ body: String) -> Reply {
        .respond(status, headers: [("Content-Type", "application/json")], body: body)
    }

    /// An XML body's reply.
    public static func xml(_ status: Int, _ body: String) -> Reply {
        .respond(status, headers: [("Content-Type", "text/xml")], body: body)
    }
}

/// A stand-in's setup failure.
public enum StandInError: Error {
    /// A socket call failed with this errno.
    case socket(Int32)
}
