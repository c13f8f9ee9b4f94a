import Foundation
import HTTP1
import HTTPServer
import Logging
import System
import TestSupport
import Testing

/// Routes marked `brief` run their blocking work on a pool of their own (`ServerOptions.briefWorkerThreads`):
/// a held worker pool does not delay them, and a held brief pool does not delay the other routes.
@Suite("Brief routes on their own pool (live server)")
struct BriefPoolLiveTests {
    /// A server with one worker and one brief thread, each held on demand, and a route of each kind that
    /// answers with the name of the thread that ran it.
    final class Server: @unchecked Sendable {
        let server: HTTPServer
        let workerGate = HandlerGate()
        let briefGate = HandlerGate()

        init() throws {
            var router = Router()
            let workerGate = workerGate
            let briefGate = briefGate
            router.add(
                Route(.GET, "/hold-worker") { _ in
                    .blocking {
                        workerGate.pass(); return Self.named()
                    }
                })
            router.add(
                Route(.GET, "/hold-brief", brief: true) { _ in
                    .blocking {
                        briefGate.pass(); return Self.named()
                    }
                })
            router.add(Route(.GET, "/work") { _ in .blocking { Self.named() } })
            router.add(Route(.GET, "/brief", brief: true) { _ in .blocking { Self.named() } })
            router.add(
                Route(.GET, "/brief-later", brief: true) { _ in
                    .blockingDeferred { responder in
                        responder.respond(Self.named())
                    }
                })
            var o = ServerOptions()
            o.port = 0
            o.eventLoops = 1
            o.workerThreads = 1
            o.briefWorkerThreads = 1
            o.accessLog = false
            server = try HTTPServer(options: o, router: router, logSink: LogSink(fd: 2))
            server.start()
        }

        /// A 200 whose body is the running thread's name (as the kernel keeps it: 15 bytes at most).
        static func named() -> Response {
            let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "unknown"
            return .json(200, Array(comm.trimmingCharacters(in: .whitespacesAndNewlines).utf8))
        }

        func stop() {
            workerGate.open(100)
            briefGate.open(100)
            server.shutdown()
            server.wait()
        }
    }

    @Test("with the only worker held, brief routes are still answered, on the brief pool's thread")
    func briefRoutesPassAHeldWorkerPool() throws {
        let s = try Server()
        defer { s.stop() }
        let held = try RawClient(port: s.server.port)
        held.send("GET /hold-worker HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(s.workerGate.waitForArrivals(1))
        let c = try RawClient(port: s.server.port)
        c.send("GET /brief HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(c.readResponse()?.text.hasPrefix("presignd-brief") == true)
        c.send("GET /brief-later HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(c.readResponse()?.text.hasPrefix("presignd-brief") == true)
        s.workerGate.open(1)
        #expect(held.readResponse()?.text.hasPrefix("presignd-work") == true)
    }

    @Test("with the only brief thread held, the other blocking routes are still answered by the worker pool")
    func otherRoutesPassAHeldBriefPool() throws {
        let s = try Server()
        defer { s.stop() }
        let held = try RawClient(port: s.server.port)
        held.send("GET /hold-brief HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(s.briefGate.waitForArrivals(1))
        let c = try RawClient(port: s.server.port)
        c.send("GET /work HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(c.readResponse()?.text.hasPrefix("presignd-work") == true)
        s.briefGate.open(1)
        #expect(held.readResponse()?.text.hasPrefix("presignd-brief") == true)
    }
}
