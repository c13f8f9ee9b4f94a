import Foundation
import JSON
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Everything the real binary writes to standard error is one JSON object per line with a `time`.
@Suite("Log lines (binary)")
struct LogLinesTests {
    static let timePattern = #"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$"#

    /// Every line of `server`'s standard error, parsed; each must have `time`, `level` and `msg`.
    static func entries(_ server: ServerProcess) throws -> [JSONValue] {
        let entries = try server.logEntries()
        for e in entries {
            let time = e["time"]?.stringValue ?? ""
            #expect(time.range(of: timePattern, options: .regularExpression) != nil, "time in \(e.jsonText)")
            #expect(["debug", "info", "warn", "error"].contains(e["level"]?.stringValue ?? ""), "\(e.jsonText)")
            #expect(e["msg"]?.stringValue != nil, "\(e.jsonText)")
        }
        return entries
    }

    static func send(_ server: ServerProcess, _ head: String, body: String? = nil) throws -> RawClient.Response {
        let c = try RawClient(port: server.port)
        if let body {
            c.send(
                head + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body)
        } else {
            c.send(head + "\r\n")
        }
        return try #require(c.readResponse())
    }

    @Test("a start-up failure's error is escaped, so a quote or backslash in a path keeps the line JSON")
    func startupFailureIsEscaped() throws {
        let dir = TestEnvironment.tempDir()
        let blocker = dir + "/not-a-directory"
        #expect(FileManager.default.createFile(atPath: blocker, contents: Data()))
        let path = blocker + #"/a "quoted\name.sqlite3"#
        let (env, _) = TestEnvironment.serverEnvironment(s3: nil, extra: ["PRESIGN_RECORDS_URL": "sqlite:" + path])
        let server = try ServerProcess(environment: env, expectListening: false)
        #expect(server.waitForExit() == 1)
        let entries = try Self.entries(server)
        #expect(entries.count == 1, "\(server.stderr)")
        #expect(entries.first?["msg"]?.stringValue == "cannot start")
        #expect(entries.first?["level"]?.stringValue == "error")
        #expect(entries.first?["error"]?.stringValue?.contains(path) == true, "\(server.stderr)")
    }

    @Test("auth.mode none: the start-up warning is JSON with time too")
    func noneModeWarning() throws {
        let (env, _) = TestEnvironment.serverEnvironment(s3: nil, extra: ["PRESIGN_AUTH_MODE": "none"])
        let server = try ServerProcess(environment: env)
        server.signal(SIGTERM)
        #expect(server.waitForExit() == 0)
        let entries = try Self.entries(server)
        #expect(entries.map { $0["msg"]?.stringValue ?? "" }.filter { $0.hasPrefix("auth.mode is none") }.count == 1)
        #expect(entries.last?["msg"]?.stringValue == "stopped")
    }
}
