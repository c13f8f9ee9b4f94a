import Foundation
import HTTPServer
import JSON
import Logging
import System
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A `LogSink` writing to a temporary file, for in-process tests that read what was logged.
final class CapturedLog: @unchecked Sendable {
    let path = NSTemporaryDirectory() + "presignd-log-\(UUID().uuidString).log"
    let sink: LogSink
    private let fd: Int32

    init() {
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o600)
        sink = LogSink(fd: fd)
    }

    /// Every line written so far.
    var lines: [String] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    /// The lines whose `msg` is `message`, parsed.
    func entries(_ message: String) throws -> [JSONValue] {
        try lines.map { try JSONValue(parsing: Array($0.utf8)) }.filter { $0["msg"]?.stringValue == message }
    }

    deinit {
        close(fd)
        unlink(path)
    }
}

extension ServerProcess {
    /// The standard-error lines, each parsed as JSON (throws at the first line that is not).
    func logEntries() throws -> [JSONValue] {
        try stderr.split(separator: "\n").map { line in
            do {
                return try JSONValue(parsing: Array(line.utf8))
            } catch {
                throw TestFailure("a log line is not JSON (\(error)): \(line)")
            }
        }
    }

    /// Waits until a standard-error line contains `text` (the reader threads deliver it shortly after
    /// the server wrote it); false if none did within `timeoutMs` or the process ended without it.
    func waitForLog(containing text: String, timeoutMs: Int = 15_000) -> Bool {
        let deadline = Date().addingTimeInterval(Double(timeoutMs) / 1000)
        while Date() < deadline {
            if stderr.contains(text) { return true }
            usleep(5_000)
        }
        return stderr.contains(text)
    }
}
