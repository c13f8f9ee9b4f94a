import Synchronization

/// Idle keep-alive connections, per server address, bounded.
///
/// Checked-out connections belong to their exchange; only idle ones are here. The most recently
/// used connection is handed out first (it is the least likely to have been closed by the server).
final class ConnectionPool: Sendable {
    /// Idle connections by address, oldest first.
    private let idle = Mutex<[ServerAddress: [ClientConnection]]>([:])
    /// At most this many idle connections per address.
    let maxIdle: Int
    /// Idle connections older than this are closed, in nanoseconds.
    let idleTimeoutNanoseconds: UInt64

    /// A pool keeping up to `maxIdle` connections per address, each for at most `idleTimeoutMs`.
    init(maxIdle: Int, idleTimeoutMs: Int) {
        self.maxIdle = maxIdle
        self.idleTimeoutNanoseconds = UInt64(idleTimeoutMs) * 1_000_000
    }

    /// An idle connection to `address` that still looks usable, or nil.
    func checkOut(_ address: ServerAddress) -> ClientConnection? {
        let now = Deadline.nowNanoseconds()
        while true {
            let candidate: ClientConnection? = idle.withLock { connections in
                connections[address]?.popLast()
            }
            guard let candidate else { return nil }
            if now &- candidate.idleSince <= idleTimeoutNanoseconds && candidate.looksReusable { return candidate }
            // Dropped here: deinit closes it outside the lock.
        }
    }

    /// Returns a connection after a complete exchange; closes it when the pool is full.
    func checkIn(_ connection: ClientConnection) {
        connection.idleSince = Deadline.nowNanoseconds()
        let overflow: ClientConnection? = idle.withLock { connections in
            var list = connections[connection.address, default: []]
            guard list.count < maxIdle else { return connection }
            list.append(connection)
            connections[connection.address] = list
            return nil
        }
        _ = overflow  // closed by deinit when it goes out of scope, outside the lock
    }

    /// Idle connections to `address` right now.
    func idleCount(for address: ServerAddress) -> Int {
        idle.withLock { $0[address]?.count ?? 0 }
    }
}
