import JSON
import System

/// A value a log line's field can hold, written as JSON (strings escaped, so a value can never break
/// the line).
public protocol LogValue: Sendable {
    /// Appends the value as JSON.
    func appendLogJSON(to buffer: inout [UInt8])
}

extension String: LogValue {
    /// A JSON string.
    public func appendLogJSON(to buffer: inout [UInt8]) { LogSink.appendQuoted(self, to: &buffer) }
}

extension Int: LogValue {
    /// A JSON number.
    public func appendLogJSON(to buffer: inout [UInt8]) { JSONWriter.appendDecimal(Int64(self), to: &buffer) }
}

extension Int32: LogValue {
    /// A JSON number.
    public func appendLogJSON(to buffer: inout [UInt8]) { JSONWriter.appendDecimal(Int64(self), to: &buffer) }
}

extension Int64: LogValue {
    /// A JSON number.
    public func appendLogJSON(to buffer: inout [UInt8]) { JSONWriter.appendDecimal(Int64(self), to: &buffer) }
}

extension Bool: LogValue {
    /// `true` or `false`.
    public func appendLogJSON(to buffer: inout [UInt8]) {
        JSONWriter.appendLiteral(self ? "true" : "false", to: &buffer)
    }
}

extension Optional: LogValue where Wrapped: LogValue {
    /// The wrapped value, or `null`.
    public func appendLogJSON(to buffer: inout [UInt8]) {
        if let value = self { value.appendLogJSON(to: &buffer) } else { JSONWriter.appendLiteral("null", to: &buffer) }
    }
}

extension LogSink {
    /// Writes one JSON line: `{"time":…,"level":…,"msg":…}` and then `fields` in order.
    ///
    /// `time` is UTC with milliseconds, as in the access log (`2026-01-02T03:04:05.678Z`). Every value is
    /// escaped; callers must still never pass a token, a key, a secret or a presigned URL's query.
    /// Nothing is written (or formatted) for a level below `minimumLevel`.
    public func log(_ level: LogLevel, _ message: String, _ fields: KeyValuePairs<String, any LogValue> = [:]) {
        guard writes(level) else { return }
        let (seconds, millis) = WallClock.now()
        write(LogSink.line(level, message, fields, epochSeconds: seconds, millis: millis))
    }

    /// A `debug` line (see `log`).
    public func debug(_ message: String, _ fields: KeyValuePairs<String, any LogValue> = [:]) {
        log(.debug, message, fields)
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
        JSONWriter.appendLiteral(#","level":"#, to: &buffer)
        LogSink.appendQuoted(level.rawValue, to: &buffer)
        JSONWriter.appendLiteral(#","msg":"#, to: &buffer)
        LogSink.appendQuoted(message, to: &buffer)
        for (key, value) in fields {
            buffer.append(UInt8(ascii: ","))
            LogSink.appendQuoted(key, to: &buffer)
            buffer.append(UInt8(ascii: ":"))
            value.appendLogJSON(to: &buffer)
        }
        JSONWriter.appendLiteral("}\n", to: &buffer)
        return buffer
    }

    /// Appends `{"time":"YYYY-MM-DDTHH:MM:SS.mmmZ"`, the start of every line (the access log's too).
    public static func appendTime(isoSecond: [UInt8], millis: Int64, to buffer: inout [UInt8]) {
        JSONWriter.appendLiteral(#"{"time":""#, to: &buffer)
        buffer.append(contentsOf: isoSecond)
        ISO8601Timestamp.appendMillis(Int(max(0, min(999, millis))), to: &buffer)
        JSONWriter.appendLiteral(#"Z""#, to: &buffer)
    }

    /// Appends `value` as a JSON string (`JSON.JSONWriter`'s escaper, the only one): a log value can
    /// never break its line.
    @inlinable
    public static func appendQuoted(_ value: String, to buffer: inout [UInt8]) {
        JSONWriter.appendQuoted(value, to: &buffer)
    }
}
