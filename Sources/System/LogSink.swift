#if canImport(Glibc)
    import Glibc
#endif

/// Where log lines go: a file descriptor written with whole-line `write`s (standard error by default).
public final class LogSink: @unchecked Sendable {
    private let fd: Int32
    private let lock = Monitor()

    /// A sink writing to `fd`.
    public init(fd: Int32 = 2) { self.fd = fd }

    /// Writes `bytes` fully (blocking; log lines are small and the sink is a pipe or a file).
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

    /// Writes one line (a newline is added).
    public func writeLine(_ s: String) { write(Array((s + "\n").utf8)) }
}
