import Synchronization

/// A scripted HTTP/1.1 server on 127.0.0.1 (an ephemeral port) for the HTTP and S3 clients' tests.
///
/// Each request (its head and `Content-Length` body) is answered with what `script` returns for
/// its index (0-based, counted over all connections). A thin layer over `LoopbackListener`.
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

    /// The listener.
    private let listener: LoopbackListener
    /// The heads of the requests received so far.
    private let seen: ArrivalLog<String>

    /// The port it listens on.
    public var port: Int { listener.port }

    /// Starts a server answering with `script`.
    public init(script: @escaping @Sendable (_ index: Int, _ request: String) -> Reply) throws {
        let seen = ArrivalLog<String>()
        self.seen = seen
        listener = try LoopbackListener(backlog: 16) { connection in
            while let (head, _) = connection.readRequest() {
                let index = seen.append(head)
                switch script(index, head) {
                case .respond(let text):
                    guard connection.send(text) else { return }
                case .respondAndClose(let text):
                    connection.send(text)
                    return
                case .hang:
                    connection.drain()
                    return
                case .close:
                    return
                }
            }
        }
    }

    /// Connections accepted so far.
    public var connections: Int { listener.accepted }

    /// The heads of the requests received so far, in order.
    public var requests: [String] { seen.all }

    /// Stops accepting and shuts every open connection down (their threads then close them).
    public func stop() { listener.stop() }
}

/// A fake server's setup failure (kept for callers that name it; the listener throws
/// `LoopbackListenerError`).
public enum FakeServerError: Error {
    /// A socket call failed with this errno.
    case socket(Int32)
}
