/// One connection to a server, plain or TLS, that owns its socket (closed in `deinit`).
///
/// `@unchecked Sendable`: a connection is used by one thread at a time, either held by the one
/// exchange that checked it out or lying idle in the pool behind its lock.
final class ClientConnection: @unchecked Sendable {
    /// Where it goes.
    let address: ServerAddress
    /// The socket.
    private let socket: Socket
    /// The TLS session, for HTTPS.
    private let tls: TLSSession?
    /// When it went back to the pool (monotonic nanoseconds).
    var idleSince: UInt64 = 0
    /// Exchanges completed on it.
    var exchanges = 0

    /// Connects (TCP connect bounded by `connectDeadline`, TLS handshake by `deadline`); with
    /// `connectHost`, the TCP connection goes to that host on the address's port, while TLS still
    /// names and verifies `address.host`.
    init(
        connectingTo address: ServerAddress, via connectHost: String? = nil, tlsContext: TLSContext?,
        connectDeadline: Deadline, deadline: Deadline
    ) throws(HTTPClientError) {
        let target =
            connectHost.map { ServerAddress(usesTLS: address.usesTLS, host: $0, port: address.port) } ?? address
        let socket = try Socket.connect(to: target, deadline: min(connectDeadline, deadline))
        var session: TLSSession?
        if address.usesTLS {
            guard let tlsContext else {
                socket.close()
                throw .tls("no TLS context for \(address)")
            }
            do throws(HTTPClientError) {
                let created = try TLSSession(context: tlsContext, address: address)
                try created.handshake(over: socket, until: deadline)
                session = created
            } catch {
                socket.close()
                throw error
            }
        }
        self.address = address
        self.socket = socket
        self.tls = session
    }

    deinit {
        tls?.shutdown(over: socket)
        socket.close()
    }

    /// Sends all of `bytes`.
    func write(_ bytes: [UInt8], until deadline: Deadline) throws(HTTPClientError) {
        try bytes.withBytes { (buffer) throws(HTTPClientError) in
            if let tls {
                try tls.write(buffer, over: socket, until: deadline)
            } else {
                try socket.send(buffer, until: deadline)
            }
        }
    }

    /// Reads up to `buffer.count` bytes; 0 means the server closed the connection.
    func read(into buffer: UnsafeMutableRawBufferPointer, until deadline: Deadline) throws(HTTPClientError) -> Int {
        if let tls { return try tls.read(into: buffer, over: socket, until: deadline) }
        return try socket.receive(into: buffer, until: deadline)
    }

    /// False when the idle connection has something to read: the server closed it, or sent bytes
    /// no request asked for (either way it cannot carry a new exchange).
    var looksReusable: Bool { !socket.isReadableNow }
}
