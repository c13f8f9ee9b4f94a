import Foundation
import JSON
import Logging
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A `LogSink` writing to a temporary file, for in-process tests that read what was logged: the lines
/// the binary would write to standard error.
public final class LogFile: @unchecked Sendable {
    /// The file.
    public let path = Temporary.path("presignd-log", suffix: ".log")
    /// The sink writing to it, at `minimumLevel`.
    public let sink: LogSink
    private let fd: Int32

    /// A new, empty log whose sink writes the lines at `minimumLevel` or above.
    public init(minimumLevel: LogLevel = .info) {
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o600)
        sink = LogSink(fd: fd, minimumLevel: minimumLevel)
    }

    /// Everything written so far.
    public var text: String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    /// Every line written so far.
    public var lines: [String] { text.split(separator: "\n").map(String.init) }

    /// Every line, each parsed as JSON (throws at the first line that is not).
    public func entries() throws -> [JSONValue] {
        try lines.map { line in
            do {
                return try JSONValue(parsing: Array(line.utf8))
            } catch {
                throw TestFailure("a log line is not JSON (\(error)): \(line)")
            }
        }
    }

    /// The lines whose `msg` is `message`, parsed.
    public func entries(_ message: String) throws -> [JSONValue] {
        try entries().filter { $0["msg"]?.stringValue == message }
    }

    /// The first line that contains `text`, waiting for it (another thread of the application may
    /// write it a moment after the event) up to `seconds`; nil when none came.
    public func line(containing text: String, within seconds: Double = 15) async -> String? {
        var found: String?
        _ = await eventually(within: seconds) {
            found = lines.first { $0.contains(text) }
            return found != nil
        }
        return found
    }

    deinit {
        close(fd)
        unlink(path)
    }
}
