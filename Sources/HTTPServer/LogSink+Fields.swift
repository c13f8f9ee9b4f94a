import HTTP1
import System

/// The level of a log line.
public enum LogLevel: String, Sendable {
    /// Detail for debugging.
    case debug
    /// Normal events: start, stop, refused credentials.
    case info
    /// Something an operator should look at (readiness lost, a skipped key).
    case warn
    /// A failure (a part cannot start, intents not stored).
    case error
}

/// A value a log line's field can hold, written as JSON (strings escaped, so a value can never break
/// the line).
public protocol LogValue: Sendable {
    /// Appends the value as JSON.
    func appendLogJSON(to buffer: inout [UInt8])
}

extension String: LogValue {
    /// A JSON string.
    public func appendLogJSON(to buffer: inout [UInt8]) { LogText.appendQuoted(self, to: &buffer) }
}

extension Int: LogValue {
    /// A JSON number.
    public func appendLogJSON(to buffer: inout [UInt8]) { buffer.append(utf8: String(self)) }
}

extension Int32: LogValue {
    /// A JSON number.
    public func appendLogJSON(to buffer: inout [UInt8]) { buffer.append(utf8: String(self)) }
}

extension Int64: LogValue {
    /// A JSON number.
    public func appendLogJSON(to buffer: inout [UInt8]) { buffer.append(utf8: String(self)) }
}

extension Bool: LogValue {
    /// `true` or `false`.
    public func appendLogJSON(to buffer: inout [UInt8]) { buffer.append(ascii: self ? "true" : "false") }
}

extension Optional: LogValue where Wrapped: LogValue {
    /// The wrapped value, or `null`.
    public func appendLogJSON(to buffer: inout [UInt8]) {
        if let value = self { value.appendLogJSON(to: &buffer) } else { buffer.append(ascii: "null") }
    }
}

extension LogSink {
    /// Writes one JSON line: `{"time":…,"level":…,"msg":…}` and then `fields` in order.
    ///
    /// `time` is UTC with milliseconds, as in the access log (`2026-01-02T03:04:05.678Z`). Every value is
    /// escaped; callers must still never pass a token, a key, a secret or a presigned URL's query.
    public func log(_ level: LogLevel, _ message: String, _ fields: KeyValuePairs<String, any LogValue> = [:]) {
        let (seconds, millis) = WallClock.now()
        write(LogSink.line(level, message, fields, epochSeconds: seconds, millis: millis))
    }

    /// An `info` line (see `log`).
    public func info(_ message: String, _ fields: KeyValuePairs<String, any LogValue> = [:]) {
        log(.info, message, fields)
    }

    /// A `warn` line (see `log`).
    public func warn(_ message: String, _ fields: KeyValuePairs<String, any LogValue> = [:]) {
        log(.warn, message, fields)
    }

    /// An `error` line (see `log`).
    public func error(_ message: String, _ fields: KeyValuePairs<String, any LogValue> = [:]) {
        log(.error, message, fields)
    }

    /// The bytes of one line, newline included, at the given time. Pure.
    public static func line(
        _ level: LogLevel, _ message: String, _ fields: KeyValuePairs<String, any LogValue>, epochSeconds: Int64,
        millis: Int64
    ) -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(128)
        var isoSecond: [UInt8] = []
        ISO8601Timestamp.appendSecond(CivilDateTime(epochSeconds: epochSeconds), to: &isoSecond)
        appendTime(isoSecond: isoSecond, millis: millis, to: &buffer)
        buffer.append(ascii: #","level":"#)
        LogText.appendQuoted(level.rawValue, to: &buffer)
        buffer.append(ascii: #","msg":"#)
        LogText.appendQuoted(message, to: &buffer)
        for (key, value) in fields {
            buffer.append(UInt8(ascii: ","))
            LogText.appendQuoted(key, to: &buffer)
            buffer.append(UInt8(ascii: ":"))
            value.appendLogJSON(to: &buffer)
        }
        buffer.append(ascii: "}\n")
        return buffer
    }

    /// Appends `{"time":"YYYY-MM-DDTHH:MM:SS.mmmZ"`, the start of every line (the access log's too).
    static func appendTime(isoSecond: [UInt8], millis: Int64, to buffer: inout [UInt8]) {
        buffer.append(ascii: #"{"time":""#)
        buffer.append(contentsOf: isoSecond)
        buffer.append(UInt8(ascii: "."))
        let ms = Int(max(0, min(999, millis)))
        buffer.append(UInt8(ascii: "0") + UInt8(ms / 100))
        buffer.append(UInt8(ascii: "0") + UInt8(ms / 10 % 10))
        buffer.append(UInt8(ascii: "0") + UInt8(ms % 10))
        buffer.append(ascii: #"Z""#)
    }
}
