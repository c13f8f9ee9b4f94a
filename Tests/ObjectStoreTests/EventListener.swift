import Foundation
import Synchronization
import TestSupport

/// A loopback HTTP/1.1 listener standing in for the server's events endpoint: every POST is recorded and
/// answered with the status `answer` gives for it (0-based over the listener's whole life), over
/// TestSupport's `LoopbackListener`. It can be stopped and started again on the same port (a push
/// endpoint that is down for a while).
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

    /// The port (fixed once the first start chose it).
    let port: Int
    /// The status for the n-th request.
    private let answer: @Sendable (Int) -> Int
    /// Everything received so far, shared with the connections' threads.
    private final class Received: Sendable {
        let deliveries = Mutex<[Delivery]>([])
    }

    /// Everything received so far.
    private let received = Received()
    /// The listener while it listens.
    private let listener = Mutex<LoopbackListener?>(nil)
    /// Listeners stopped by `stop()`, whose connections are served on until this listener goes.
    private let stopped = Mutex<[LoopbackListener]>([])

    /// Listens on 127.0.0.1 and `port` (0: a free one), answering with `answer`.
    init(port: Int = 0, answer: @escaping @Sendable (Int) -> Int) throws {
        self.answer = answer
        let first = try LoopbackListener(port: port) { [received] connection in
            Self.serve(connection, received: received, answer: answer)
        }
        self.port = first.port
        listener.withLock { $0 = first }
    }

    /// The requests received so far.
    var deliveries: [Delivery] { received.deliveries.withLock { $0 } }

    /// The URL RGW pushes to.
    var url: String { "http://127.0.0.1:\(port)/events" }

    /// Stops listening: the port refuses new connections until `start()` (open ones are served on).
    func stop() {
        guard let current = listener.withLock({ $0.take() }) else { return }
        current.stopAccepting()
        stopped.withLock { $0.append(current) }
    }

    /// Listens again on the same port.
    func start() throws {
        let (received, answer) = (self.received, self.answer)
        let again = try LoopbackListener(port: port) { connection in
            Self.serve(connection, received: received, answer: answer)
        }
        listener.withLock { $0 = again }
    }

    deinit {
        listener.withLock { $0.take() }?.stop()
        for old in stopped.withLock({ $0 }) { old.stop() }
    }

    /// Reads requests from `connection` and answers them, until it closes.
    private static func serve(
        _ connection: LoopbackConnection, received: Received, answer: @Sendable (Int) -> Int
    ) {
        while let (head, body) = connection.readRequest() {
            var lines = head.components(separatedBy: "\r\n")
            let requestLine = lines.removeFirst()
            let headers = lines.compactMap { line -> (name: String, value: String)? in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            }
            let status = received.deliveries.withLock { deliveries -> Int in
                let status = answer(deliveries.count)
                deliveries.append(Delivery(requestLine: requestLine, headers: headers, body: body, status: status))
                return status
            }
            guard connection.send("HTTP/1.1 \(status) X\r\nContent-Length: 0\r\n\r\n") else { return }
        }
    }
}
