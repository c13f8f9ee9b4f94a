import HTTP1

/// One client connection, owned by exactly one event loop (never touched from another thread): its
/// socket, its buffers and its `ConnectionStateMachine`, which holds the request cycle's state.
final class Connection {
    /// The request whose body is being read, or whose blocking handler runs.
    struct PendingBody {
        var head: RequestHead
        var route: Route
        var parameters: [(name: String, value: String)]
        var requestId: String
        var startNanos: UInt64
        var remaining: Int
        var chunked: ChunkedDecoder?
        var body: [UInt8]
    }

    /// The loop's key for the connection (its epoll token).
    let id: UInt64
    /// The socket.
    let fd: Int32
    /// The peer address, "ip:port".
    let peer: String
    /// The request cycle.
    var machine: ConnectionStateMachine
    /// Bytes received but not yet consumed (a partial head, or pipelined requests beyond the per-read bound).
    var inbox: [UInt8] = []
    /// Response bytes not yet written, from `outOffset`.
    var outbox: [UInt8] = []
    /// How much of `outbox` is written.
    var outOffset = 0
    /// The request being read or waiting for its handler.
    var pendingBody: PendingBody?
    /// The epoll events currently registered.
    var armed: UInt32 = 0
    /// Whether the descriptor was added to epoll.
    var registered = false
    /// Whether the connection sits on the loop's ready list.
    var queuedReady = false
    /// The TLS session when the server terminates HTTPS; nil on plain HTTP (checked once per read or write).
    var tls: TLSServerSession?
    /// Whether the connection sits on the loop's list of TLS sessions holding buffered input.
    var queuedTLSRead = false

    /// A connection accepted at `nowMs`.
    init(id: UInt64, fd: Int32, peer: String, nowMs: Int64, rules: ConnectionStateMachine.Rules, tls: TLSServerSession?)
    {
        self.id = id
        self.fd = fd
        self.peer = peer
        self.tls = tls
        machine = ConnectionStateMachine(nowMs: nowMs, rules: rules)
    }

    /// True while response bytes wait to be written.
    var writePending: Bool { outOffset < outbox.count }

    /// True when nothing is pending (the machine's rule over this connection's buffers).
    var isIdle: Bool { machine.isIdle(hasBufferedInput: !inbox.isEmpty, writePending: writePending) }
}
