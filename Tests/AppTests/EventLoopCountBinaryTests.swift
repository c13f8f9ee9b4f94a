import Foundation
import JSON
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The real binary sizes its event loops by the CPUs it may use, and says so in its start-up log.
@Suite("presignd binary: event-loop count", .heavy)
struct EventLoopCountBinaryTests {
    static let taskset = "/usr/bin/taskset"

    /// The first CPU this test process may run on (from `/proc/self/status`), so the pin always works.
    static func firstAllowedCPU() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("Cpus_allowed_list:") })
        let list = line.dropFirst("Cpus_allowed_list:".count).trimmingCharacters(in: .whitespaces)
        return try #require(Int(list.prefix { $0.isNumber }))
    }

    /// The names of the process's threads other than its main one, from `/proc/PID/task/*/comm`.
    static func threadNames(pid: Int32) -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.filter { $0 != String(pid) }.compactMap {
            (try? String(contentsOfFile: "/proc/\(pid)/task/\($0)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .newlines)
        }
    }

    @Test(
        "pinned to one CPU with server.eventLoops at its default: one loop, source affinity",
        .enabled(if: FileManager.default.isExecutableFile(atPath: taskset)))
    func pinnedToOneCPU() async throws {
        let (env0, _) = TestEnvironment.serverEnvironment(s3: nil)
        var env = env0
        env["PRESIGN_SERVER_EVENT_LOOPS"] = "0"  // the default (ServerProcess sets 2 otherwise)
        let cpu = try Self.firstAllowedCPU()
        let server = try await ServerProcess(environment: env, launcher: [Self.taskset, "-c", String(cpu)])
        defer { server.stop() }
        let line = try #require(await server.line(containing: #""msg":"event loops""#), "\(server.stderr)")
        let json = try JSONValue(parsing: line)
        #expect(json["level"]?.stringValue == "info")
        #expect(json["count"]?.intValue == 1)
        #expect(json["source"]?.stringValue == "affinity")

        // Live threads: every thread names itself as it starts, so wait until the first loop has and no
        // thread is left with the process's name, then count the loops.
        let pid = server.process.processIdentifier
        var names = Self.threadNames(pid: pid)
        _ = await eventually(within: 15, pollMs: 10) {
            names = Self.threadNames(pid: pid)
            return names.contains("presignd-loop0") && !names.contains("presignd")
        }
        #expect(names.filter { $0.hasPrefix("presignd-loop") } == ["presignd-loop0"], "\(names)")

        // And it serves.
        #expect(try await server.exchange("GET", "/healthz").status == 200)
    }

    @Test("server.eventLoops set: that many loops, source configured")
    func configured() async throws {
        let (env0, _) = TestEnvironment.serverEnvironment(s3: nil)
        var env = env0
        env["PRESIGN_SERVER_EVENT_LOOPS"] = "3"
        let server = try await ServerProcess(environment: env)
        defer { server.stop() }
        let line = try #require(await server.line(containing: #""msg":"event loops""#), "\(server.stderr)")
        let json = try JSONValue(parsing: line)
        #expect(json["count"]?.intValue == 3)
        #expect(json["source"]?.stringValue == "configured")
    }
}
