import HTTP1

/// One client connection, owned by exactly one event loop (never touched from another thread).
final class Connection {
    /// Where the connection is in its request cycle.
    enum Phase {
        /// Waiting for (the rest of) a request head.
        case awaitingHead
        /// The head is read; the body is arriving.
        case readingBody
        /// A blocking handler runs on the worker pool; input is paused until its response is written.
        case waitingForHandler
        /// The write side is shut; remaining input is read and discarded until EOF or a deadline.
        case lingering
        /// Closed; kept only until the loop drops its reference.
        case closed
    }

    /// The request whose body is being read.
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

    let id: UInt64
    let fd: Int32
    let peer: String
    var phase: Phase = .awaitingHead
    /// Bytes received but not yet consumed (a partial head, or pipelined requests beyond the per-read bound).
    var inbox: [UInt8] = []
    /// Response bytes not yet written, from `outOffset`.
    var outbox: [UInt8] = []
    var outOffset = 0
    /// Close once the outbox is written.
    var closeAfterWrite = false
    /// The peer shut its write side.
    var peerClosed = false
    /// When the head being awaited started to count against the header deadline; nil while idle.
    var headClockStartMs: Int64?
    /// Last time bytes moved either way.
    var lastActiveMs: Int64
    /// Deadline for the body being read, or for lingering.
    var deadlineMs: Int64 = 0
    var pendingBody: PendingBody?
    /// The epoll events currently registered.
    var armed: UInt32 = 0
    /// Requests answered on this connection.
    var served = 0
    /// Bytes discarded while lingering.
    var discarded = 0
    /// Whether the descriptor was added to epoll.
    var registered = false
    /// Whether the connection sits on the loop's ready list.
    var queuedReady = false
    /// The TLS session when the server terminates HTTPS; nil on plain HTTP (checked once per read or write).
    var tls: TLSServerSession?
    /// Whether the connection sits on the loop's list of TLS sessions holding buffered input.
    var queuedTLSRead = false

    init(id: UInt64, fd: Int32, peer: String, nowMs: Int64, tls: TLSServerSession? = nil) {
        self.id = id
        self.fd = fd
        self.peer = peer
        self.tls = tls
        self.lastActiveMs = nowMs
        self.headClockStartMs = nowMs
    }

    /// True when nothing is pending: no partial input, no output, no work in flight.
    var isIdle: Bool {
        if case .awaitingHead = phase { return inbox.isEmpty && outOffset >= outbox.count }
        return false
    }
}
