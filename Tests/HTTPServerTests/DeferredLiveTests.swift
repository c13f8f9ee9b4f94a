import Dispatch
import Foundation
import HTTP1
import HTTPServer
import Logging
import Synchronization
import System
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Responders handed out by `/deferred`, for the test to answer from its own thread.
final class ResponderBox: @unchecked Sendable {
    /// Guards `held`.
    private let lock = NSCondition()
    /// The responders not yet taken, oldest first.
    private var held: [Responder] = []

    /// Keeps `responder` for the test.
    func put(_ responder: Responder) {
        lock.withLock {
            held.append(responder)
            lock.broadcast()
        }
    }

    /// Takes the oldest responder, waiting at most `seconds`; nil when none came.
    func take(seconds: Double = 10) -> Responder? {
        let deadline = Date().addingTimeInterval(seconds)
        return lock.withLock {
            while held.isEmpty { if !lock.wait(until: deadline) { return nil } }
            return held.removeFirst()
        }
    }
}

/// A server with one worker held busy on demand and routes answered later by other threads.
final class DeferredServer: @unchecked Sendable {
    let server: HTTPServer
    let responders = ResponderBox()
    let workerGate = HandlerGate()
    var port: Int { server.port }

    init() throws {
        var router = Router()
        let responders = self.responders
        let gate = workerGate
        router.add(Route(.GET, "/deferred") { _ in .deferred { responder in responders.put(responder) } })
        // Answered from another thread right away (the intent writer's usual case).
        router.add(
            Route(.GET, "/soon/{n}") { r in
                let n = r.parameter("n") ?? ""
                return .deferred { responder in
                    PThread.detach(name: "test-answer") { responder.respond(.json(200, Array("soon \(n)".utf8))) }
                }
            })
        router.add(Route(.GET, "/dropped") { _ in .deferred { _ in } })
        router.add(
            Route(.GET, "/hold-worker") { _ in
                .blocking {
                    gate.pass(); return .json(200, Array("held".utf8))
                }
            })
        router.add(Route(.GET, "/n/{id}") { r in .respond(.json(200, Array((r.parameter("id") ?? "").utf8))) })
        var o = ServerOptions()
        o.port = 0
        o.eventLoops = 1
        o.workerThreads = 1
        o.accessLog = false
        server = try HTTPServer(options: o, router: router, logSink: LogSink(fd: 2))
        server.start()
    }

    func stop() {
        workerGate.open(100)
        server.shutdown()
        server.wait()
    }
}

@Suite("Deferred answers on a live server (in process, real sockets)")
struct DeferredLiveTests {
    /// The only worker is held; a deferred request is still answered (it never needed a worker), and
    /// another connection is served while the deferred one waits.
    @Test func aDeferredAnswerNeedsNoWorkerAndTheLoopGoesOn() throws {
        let s = try DeferredServer()
        defer { s.stop() }
        let held = try RawClient(port: s.port)
        held.send("GET /hold-worker HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(s.workerGate.waitForArrivals(1))
        let c = try RawClient(port: s.port)
        c.send("GET /deferred HTTP/1.1\r\nHost: a\r\n\r\n")
        let responder = try #require(s.responders.take())
        let other = try RawClient(port: s.port)
        other.send("GET /n/7 HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(other.readResponse()?.text == "7")  // the loop was not blocked
        #expect(responder.respond(.json(201, Array("later".utf8))))
        let r = try #require(c.readResponse())
        #expect(r.status == 201)
        #expect(r.text == "later")
        #expect(r.header("X-Request-Id") != nil)
        s.workerGate.open(1)
        #expect(held.readResponse()?.text == "held")
    }

    /// Pipelined requests behind a deferred one wait for it: answers stay in request order.
    @Test func pipelinedAnswersStayInOrder() throws {
        let s = try DeferredServer()
        defer { s.stop() }
        let c = try RawClient(port: s.port)
        c.send(
            "GET /n/1 HTTP/1.1\r\nHost: a\r\n\r\nGET /deferred HTTP/1.1\r\nHost: a\r\n\r\nGET /n/3 HTTP/1.1\r\nHost: a\r\n\r\n"
                + (4..<40).map { "GET /soon/\($0) HTTP/1.1\r\nHost: a\r\n\r\n" }.joined())
        #expect(c.readResponse()?.text == "1")
        let responder = try #require(s.responders.take())
        responder.respond(.json(200, Array("2".utf8)))
        #expect(c.readResponse()?.text == "2")
        #expect(c.readResponse()?.text == "3")
        for n in 4..<40 { #expect(c.readResponse()?.text == "soon \(n)") }
    }

    /// The client leaves before the answer: answering is harmless (the connection closes, nothing
    /// crashes), and the server goes on serving; a second answer is refused.
    @Test func anAnswerForAClosedConnectionIsHarmless() throws {
        let s = try DeferredServer()
        defer { s.stop() }
        var taken: Responder?
        do {
            let c = try RawClient(port: s.port)
            c.send("GET /deferred HTTP/1.1\r\nHost: a\r\n\r\n")
            taken = s.responders.take()
        }  // the client's socket closes here
        let responder = try #require(taken)
        // Input is paused while the answer is awaited (as for a worker's), so the departure is found
        // when the answer is written: the write or the read after it sees the peer gone.
        #expect(responder.respond(.json(200, Array("too late".utf8))))
        #expect(!responder.respond(.json(200, Array("twice".utf8))))
        #expect(eventuallyBlocking(within: 10) { s.server.openConnections == 0 })
        let next = try RawClient(port: s.port)
        next.send("GET /n/9 HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(next.readResponse()?.text == "9")
    }

    /// Every answer comes at most once on the wire: a second `respond` is dropped, and the next
    /// request on the connection gets its own answer.
    @Test func aSecondAnswerNeverReachesTheWire() throws {
        let s = try DeferredServer()
        defer { s.stop() }
        let c = try RawClient(port: s.port)
        c.send("GET /deferred HTTP/1.1\r\nHost: a\r\n\r\n")
        let responder = try #require(s.responders.take())
        #expect(responder.respond(.json(200, Array("first".utf8))))
        #expect(!responder.respond(.json(200, Array("second".utf8))))
        #expect(c.readResponse()?.text == "first")
        c.send("GET /n/5 HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(c.readResponse()?.text == "5")
    }

    /// A handler that lets its responder go unanswered gets a 500 for it, not a hung connection.
    @Test func aDroppedResponderAnswers500() throws {
        let s = try DeferredServer()
        defer { s.stop() }
        let c = try RawClient(port: s.port)
        c.send("GET /dropped HTTP/1.1\r\nHost: a\r\n\r\n")
        let r = try #require(c.readResponse())
        #expect(r.status == 500)
        #expect(r.text.contains("INTERNAL_ERROR"))
        c.send("GET /n/6 HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(c.readResponse()?.text == "6")
    }

    /// Many connections answered from other threads at once: every one gets its own answer.
    @Test func manyConcurrentDeferredAnswers() throws {
        let s = try DeferredServer()
        defer { s.stop() }
        let failures = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 16) { i in
            guard let c = try? RawClient(port: s.port) else {
                failures.add(1, ordering: .relaxed)
                return
            }
            for k in 0..<50 {
                c.send("GET /soon/\(i)-\(k) HTTP/1.1\r\nHost: a\r\n\r\n")
                if c.readResponse()?.text != "soon \(i)-\(k)" { failures.add(1, ordering: .relaxed) }
            }
        }
        #expect(failures.load(ordering: .relaxed) == 0)
    }
}
