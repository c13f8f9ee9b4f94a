import Foundation
import Logging
import System
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The field-based log lines: one JSON object per line, `time` first, every value escaped.
@Suite("LogSink lines")
struct LogSinkTests {
    /// The line parsed with Foundation's parser (independent of the writer under test).
    static func parse(_ line: [UInt8]) throws -> [String: Any] {
        #expect(line.last == UInt8(ascii: "\n"))
        #expect(line.dropLast().contains(UInt8(ascii: "\n")) == false, "one line")
        let object = try JSONSerialization.jsonObject(with: Data(line.dropLast()))
        return try #require(object as? [String: Any])
    }

    @Test("time, level and msg come first, in the access log's time format")
    func header() throws {
        // 2021-03-04T05:06:07 UTC, 8 ms.
        let line = LogSink.line(.info, "listening", ["port": 8080], epochSeconds: 1_614_834_367, millis: 8)
        let text = String(decoding: line, as: UTF8.self)
        #expect(text == #"{"time":"2021-03-04T05:06:07.008Z","level":"info","msg":"listening","port":8080}"# + "\n")
        let object = try Self.parse(line)
        #expect(object["time"] as? String == "2021-03-04T05:06:07.008Z")
    }

    @Test(
        "values that would break hand-written JSON are escaped",
        arguments: [
            #"a "quoted" path"#, #"back\slash"#, "new\nline", "tab\tand\u{01}control", "carriage\r", "안녕 🌏", "",
            #"{"level":"error"}"#,
        ])
    func escaping(value: String) throws {
        let line = LogSink.line(
            .error, "cannot \"start\"", ["error": value, "odd \"key\"": value], epochSeconds: 0, millis: 999)
        let object = try Self.parse(line)
        #expect(object["error"] as? String == value)
        #expect(object["odd \"key\""] as? String == value)
        #expect(object["msg"] as? String == "cannot \"start\"")
        #expect(object["level"] as? String == "error")
        #expect(object["time"] as? String == "1970-01-01T00:00:00.999Z")
    }

    @Test("numbers, Booleans and null keep their types, in order")
    func types() throws {
        let missing: String? = nil
        let line = LogSink.line(
            .warn, "readiness changed",
            [
                "signal": Int32(15), "big": Int64(-9_000_000_000), "tls": false, "user": missing, "port": 8080,
            ], epochSeconds: 86_400, millis: 0)
        let text = String(decoding: line, as: UTF8.self)
        #expect(
            text.hasSuffix(
                #""signal":15,"big":-9000000000,"tls":false,"user":null,"port":8080}"# + "\n"), "\(text)")
        let object = try Self.parse(line)
        #expect(object["signal"] as? Int == 15)
        #expect(object["user"] is NSNull)
        #expect(object["port"] as? Int == 8080)
    }

    @Test("log(_:_:_:) writes one whole line to the descriptor, with the current time")
    func writesToTheDescriptor() throws {
        let path = NSTemporaryDirectory() + "presignd-logsink-\(UUID().uuidString).log"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        try #require(fd >= 0)
        defer {
            close(fd)
            unlink(path)
        }
        let before = Date()
        LogSink(fd: fd).warn("janitor pass stopped", ["error": "disk \"full\""])
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let object = try Self.parse(bytes)
        #expect(object["msg"] as? String == "janitor pass stopped")
        #expect(object["error"] as? String == "disk \"full\"")
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let time = try #require((object["time"] as? String).flatMap { formatter.date(from: $0) })
        #expect(time.timeIntervalSince(before) > -1, "the line's time is now, not a fixed value")
    }

    /// The lines a sink at `minimum` writes when one line of each level is logged.
    static func written(at minimum: LogLevel) throws -> [String] {
        let path = NSTemporaryDirectory() + "presignd-loglevel-\(UUID().uuidString).log"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        try #require(fd >= 0)
        defer {
            close(fd)
            unlink(path)
        }
        let sink = LogSink(fd: fd, minimumLevel: minimum)
        sink.debug("d")
        sink.info("i")
        sink.warn("w")
        sink.error("e")
        sink.log(.info, "i2")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return try text.split(separator: "\n").map {
            try #require(Self.parse(Array(($0 + "\n").utf8))["msg"] as? String)
        }
    }

    @Test(
        "log.level: lines below the sink's level are not written",
        arguments: [
            (LogLevel.debug, ["d", "i", "w", "e", "i2"]), (.info, ["i", "w", "e", "i2"]), (.warn, ["w", "e"]),
            (.error, ["e"]),
        ])
    func levels(minimum: LogLevel, expected: [String]) throws {
        #expect(try Self.written(at: minimum) == expected)
        #expect(LogSink(minimumLevel: minimum).writes(.info) == (minimum <= .info))
    }

    @Test("the levels are ordered debug < info < warn < error, named as log.level spells them")
    func order() {
        #expect(LogLevel.allCases.sorted() == [.debug, .info, .warn, .error])
        #expect(LogLevel.allCases.map(\.rawValue) == ["debug", "info", "warn", "error"])
    }
}
