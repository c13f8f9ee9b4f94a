import System

#if canImport(Glibc)
    import Glibc
#endif

/// Where log lines go: a file descriptor written with whole-line `write`s (standard error by default),
/// and the level below which lines are not written (`log.level`).
public final class LogSink: @unchecked Sendable {
    /// The descriptor.
    private let fd: Int32
    /// Serialises writes, so lines of several threads never interleave.
    private let lock = Monitor()
    /// Lines below this level are dropped (`log.level`; `info` by default).
    public let minimumLevel: LogLevel

    /// A sink writing to `fd` the lines at `minimumLevel` or above.
    public init(fd: Int32 = 2, minimumLevel: LogLevel = .info) {
        self.fd = fd
        self.minimumLevel = minimumLevel
    }

    /// True when lines at `level` are written.
    @inlinable
    public func writes(_ level: LogLevel) -> Bool { level >= minimumLevel }

    /// Writes `bytes` fully (blocking; log lines are small and the sink is a pipe or a file), whatever
    /// the level: callers of this raw form (the access log) check `writes(_:)` themselves.
    public func write(_ bytes: [UInt8]) {
        lock.withLock {
            bytes.withUnsafeBytes { buf in
                var off = 0
                while off < buf.count {
                    let n = Glibc.write(fd, buf.baseAddress! + off, buf.count - off)
                    if n < 0 {
                        if errno == EINTR { continue }
                        return
                    }
                    off += n
                }
            }
        }
    }

    /// Writes one line of plain text (a newline is added), whatever the level: for messages before the
    /// configuration (and so the level) is known.
    public func writeLine(_ s: String) { write(Array((s + "\n").utf8)) }
}
