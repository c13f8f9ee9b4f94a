import System

/// A bounded pool of database connections, each used by one thread at a time.
///
/// Connections are opened lazily up to `maxSize`; a caller that finds none idle and the pool full waits.
/// A connection that `isBroken` reports unusable after a call is closed instead of returned, and so are
/// all idle ones (a restarted server breaks them all), so the next call connects afresh.
final class ConnectionPool<Connection: AnyObject & Sendable>: Sendable {
    /// The pool's bookkeeping.
    private struct State {
        /// Connections ready for use.
        var idle: [Connection] = []
        /// Connections open or being opened, idle or in use.
        var open = 0
    }

    /// The largest number of connections open at once.
    let maxSize: Int
    /// Opens a new connection.
    private let connect: @Sendable () throws(RecordsError) -> Connection
    /// True when a connection can no longer be used.
    private let isBroken: @Sendable (Connection) -> Bool
    /// The bookkeeping, and the condition callers wait on.
    private let monitor = Monitor(State())

    /// A pool of at most `maxSize` connections made by `connect`.
    init(
        maxSize: Int, connect: @escaping @Sendable () throws(RecordsError) -> Connection,
        isBroken: @escaping @Sendable (Connection) -> Bool
    ) {
        precondition(maxSize >= 1, "a pool needs at least one connection")
        self.maxSize = maxSize
        self.connect = connect
        self.isBroken = isBroken
    }

    /// Runs `body` with a connection of the pool, waiting for one if all are in use.
    func withConnection<R>(_ body: (Connection) throws(RecordsError) -> R) throws(RecordsError) -> R {
        let connection = try checkOut()
        do {
            let result = try body(connection)
            checkIn(connection)
            return result
        } catch {
            checkIn(connection)
            throw error
        }
    }

    /// Takes an idle connection, or opens one if the pool has room, or waits.
    private func checkOut() throws(RecordsError) -> Connection {
        let idle: Connection? = monitor.withLock { state, waiter in
            while true {
                if let connection = state.idle.popLast() { return connection }
                if state.open < maxSize {
                    state.open += 1
                    return nil
                }
                waiter.wait()
            }
        }
        if let idle { return idle }
        do {
            return try connect()
        } catch {
            monitor.withLock { state in state.open -= 1 }
            monitor.broadcast()
            throw error
        }
    }

    /// Returns a connection, or closes it (and every idle one) if it is broken.
    private func checkIn(_ connection: Connection) {
        let broken = isBroken(connection)
        let dropped: [Connection] = monitor.withLock { state in
            if broken {
                let dropped = state.idle
                state.idle.removeAll()
                state.open -= dropped.count + 1
                return dropped
            }
            state.idle.append(connection)
            return []
        }
        monitor.broadcast()
        _ = dropped  // closed here, outside the lock, when the last reference goes
    }
}
