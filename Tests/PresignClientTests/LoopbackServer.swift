import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 for the client's unit tests: requests framed by Content-Length,
/// keep-alive, every request handed to `handler`; a thin layer over TestSupport's `LoopbackListener`.
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

    /// The listener (TestSupport's one loopback listener).
    private let listener: LoopbackListener

    /// The port it listens on.
    var port: Int { listener.port }

    init(handler: @escaping @Sendable (Request) -> Response) throws {
        listener = try LoopbackListener { connection in LoopbackServer.serve(connection, handler) }
    }

    deinit { close() }

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Stops accepting and shuts the open connections down.
    func close() { listener.stop() }

    /// Serves one connection: requests framed by Content-Length, `100 Continue` when asked.
    private static func serve(_ connection: LoopbackConnection, _ handler: @Sendable (Request) -> Response) {
        while let headEnd = connection.readHead() {
            let head = String(decoding: connection.buffer[..<headEnd], as: UTF8.self)
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
                connection.send("HTTP/1.1 100 Continue\r\n\r\n")
            }
            let length = Int(headers["content-length"] ?? "0") ?? 0
            guard connection.readUntil(count: headEnd + length) else { return }
            let body = Array(connection.buffer[headEnd..<(headEnd + length)])
            connection.buffer.removeFirst(headEnd + length)
            let request = Request(
                method: String(requestLine[0]), target: String(requestLine[1]), headers: headers, body: body)
            let r = handler(request)
            var text = "HTTP/1.1 \(r.status) X\r\nContent-Length: \(r.body.count)\r\n"
            for (k, v) in r.headers { text += "\(k): \(v)\r\n" }
            text += "\r\n"
            guard connection.send(Array(text.utf8) + r.body) else { return }
        }
    }
}

struct LoopbackError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
