import System

#if canImport(Glibc)
    import Glibc
#endif

/// A client of clamd's `INSTREAM` command (the protocol of clamd(8)): it connects, sends
/// `zINSTREAM\0`, then the bytes to scan as chunks of `<4-byte big-endian length><bytes>` of at most
/// `chunkBytes` each, a zero-length chunk to end them, and reads the NUL-terminated verdict
/// (`stream: OK`, `stream: <Name> FOUND`). One connection per scan; every call blocks (a scanner's
/// thread), bounded by `timeoutMs` from connect to verdict. Memory: one chunk header, whatever the size.
public struct ClamdClient: Sendable {
    /// Where clamd listens.
    public let address: ClamdAddress
    /// How long one scan (or ping) may take, connect to answer, in milliseconds.
    public let timeoutMs: Int
    /// The largest `INSTREAM` chunk sent.
    public let chunkBytes: Int

    /// A client of clamd at `address`.
    public init(address: ClamdAddress, timeoutMs: Int, chunkBytes: Int = 65_536) {
        self.address = address
        self.timeoutMs = timeoutMs
        self.chunkBytes = max(1, chunkBytes)
    }

    /// Asks clamd `zPING\0`; throws unless it answers `PONG`.
    public func ping() throws(ClamdError) {
        let connection = try ClamdConnection.open(address, deadline: deadline())
        defer { connection.close() }
        try connection.send(Array("zPING\0".utf8))
        let reply = try connection.readReply()
        guard reply == "PONG" else { throw .protocolError("PING answered \"\(reply.prefix(200))\"") }
    }

    /// Scans the bytes `feed` writes, through the writer it is given (called as often as it likes, with
    /// pieces of any size: they are cut into chunks of at most `chunkBytes`), and returns clamd's verdict.
    /// An error `feed` throws ends the scan without a verdict and is thrown.
    public func scan(_ feed: (ClamdWriter) throws(ClamdError) -> Void) throws(ClamdError) -> ClamdVerdict {
        let connection = try ClamdConnection.open(address, deadline: deadline())
        defer { connection.close() }
        try connection.send(Array("zINSTREAM\0".utf8))
        let writer = ClamdWriter(connection: connection, chunkBytes: chunkBytes)
        do throws(ClamdError) {
            try feed(writer)
            try connection.send(ClamdVerdict.chunkHeader(0))
        } catch {
            // clamd closes the stream when it passes StreamMaxLength, and says so first.
            if case .unreachable = error, let reply = try? connection.readReply(),
                let verdict = try? ClamdVerdict.parse(reply), verdict == .tooLarge
            {
                return .tooLarge
            }
            throw error
        }
        return try ClamdVerdict.parse(try connection.readReply())
    }

    /// The scan's deadline on the monotonic clock (ns).
    private func deadline() -> UInt64 { MonotonicClock.nanoseconds() &+ UInt64(max(0, timeoutMs)) &* 1_000_000 }
}

/// What `ClamdClient.scan`'s feed writes the bytes to scan through.
public struct ClamdWriter {
    let connection: ClamdConnection
    let chunkBytes: Int

    /// Sends `bytes` as one or more `INSTREAM` chunks.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(ClamdError) {
        var offset = 0
        while offset < bytes.count {
            let length = min(chunkBytes, bytes.count - offset)
            try connection.send(ClamdVerdict.chunkHeader(length))
            try connection.send(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length]))
            offset += length
        }
    }
}
