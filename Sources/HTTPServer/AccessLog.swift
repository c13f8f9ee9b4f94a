import HTTP1
import Logging
import System

#if canImport(Glibc)
    import Glibc
#endif

/// The per-loop access log: one JSON line per request, buffered and written once per loop iteration.
/// Never holds a query string, a header value other than the request id, a credential, or a body.
struct AccessLog {
    let enabled: Bool
    let sink: LogSink
    private var buffer: [UInt8] = []

    /// A log writing when `enabled` and the sink writes `info` lines (the level of every request line).
    init(enabled: Bool, sink: LogSink) {
        self.enabled = enabled && sink.writes(.info)
        self.sink = sink
        buffer.reserveCapacity(16_384)
    }

    /// Appends the line of one answered request; `userId` is the caller the handler served (never a
    /// credential), absent when there was none.
    mutating func record(
        clock: LoopClock, requestId: String?, method: String, route: String, status: Int, bytes: Int, micros: Int64,
        peer: String, userId: String? = nil
    ) {
        guard enabled else { return }
        LogSink.appendTime(isoSecond: clock.isoSecond, millis: clock.millis, to: &buffer)
        buffer.append(ascii: #","level":"info","msg":"request","requestId":"#)
        LogSink.appendQuoted(requestId ?? "", to: &buffer)
        buffer.append(ascii: #","method":"#)
        LogSink.appendQuoted(method, to: &buffer)
        buffer.append(ascii: #","route":"#)
        LogSink.appendQuoted(route, to: &buffer)
        buffer.append(ascii: #","status":"#)
        ResponseWriter.appendDecimal(status, to: &buffer)
        buffer.append(ascii: #","bytes":"#)
        ResponseWriter.appendDecimal(bytes, to: &buffer)
        buffer.append(ascii: #","durationUs":"#)
        ResponseWriter.appendDecimal(Int(max(0, micros)), to: &buffer)
        buffer.append(ascii: #","peer":"#)
        LogSink.appendQuoted(peer, to: &buffer)
        if let userId {
            buffer.append(ascii: #","userId":"#)
            LogSink.appendQuoted(userId, to: &buffer)
        }
        buffer.append(ascii: "}\n")
        if buffer.count > 60_000 { flush() }
    }

    /// Writes the buffered lines with one `write`.
    mutating func flush() {
        guard !buffer.isEmpty else { return }
        sink.write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}
