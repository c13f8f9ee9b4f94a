import Dispatch
import Foundation
import HTTPServer
import Logging
import Synchronization
import System
import TestSupport
import Testing

/// A gate a blocking handler waits at until the test opens it, counting who arrived.
final class HandlerGate: Sendable {
    let arrived = Atomic<Int>(0)
    private let semaphore = DispatchSemaphore(value: 0)

    /// Called by the handler: counts itself, then waits for `open`.
    func pass() {
        arrived.add(1, ordering: .relaxed)
        semaphore.wait()
    }

    /// Lets `count` waiting (or future) handlers through.
    func open(_ count: Int) {
        for _ in 0..<count { semaphore.signal() }
    }

    /// Waits (polling, up to 30 s) until `count` handlers arrived.
    func waitForArrivals(_ count: Int) -> Bool {
        for _ in 0..<30_000 {
            if arrived.load(ordering: .relaxed) >= count { return true }
            usleep(1_000)
        }
        return arrived.load(ordering: .relaxed) >= count
    }
}

/// A value threads share under a lock (a class, so escaping closures can hold it).
final class Locked<Value>: @unchecked Sendable {
    private let mutex = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, under the lock.
    func withLock<R>(_ body: (inout Value) -> R) -> R {
        mutex.lock()
        defer { mutex.unlock() }
        return body(&value)
    }
}

@Suite("Worker pool: a bounded queue, and 503 SERVER_BUSY when it is full")
struct WorkerPoolTests {
    @Test("trySubmit refuses once maxQueued jobs wait; a refused job never runs; queued ones do")
    func boundedQueue() {
        let pool = WorkerPool(threads: 1, maxQueued: 1)
        defer { pool.shutdown() }
        let gate = HandlerGate()
        let ran = Locked<[Int]>([])
        let done = DispatchSemaphore(value: 0)
        #expect(
            pool.trySubmit {
                gate.pass(); ran.withLock { $0.append(1) }; done.signal()
            })
        #expect(gate.waitForArrivals(1), "the first job runs on the one worker")
        #expect(
            pool.trySubmit {
                ran.withLock { $0.append(2) }; done.signal()
            }, "one job may wait")
        #expect(pool.queuedCount == 1)
        #expect(
            !pool.trySubmit {
                ran.withLock { $0.append(3) }; done.signal()
            }, "the queue is full")
        #expect(pool.refusedCount == 1)
        gate.open(1)
        done.wait()
        done.wait()
        // Both accepted jobs finished; a third signal would come only from the refused job.
        #expect(ran.withLock { $0 } == [1, 2])
        #expect(pool.queuedCount == 0)
        #expect(pool.trySubmit { done.signal() }, "room again once the queue drained")
        done.wait()
    }

    @Test("a full queue is answered at once with 503 SERVER_BUSY and Retry-After; the loop keeps serving")
    func busyAnswer() throws {
        let gate = HandlerGate()
        var router = Router()
        router.add(Route(.GET, "/hello") { _ in .respond(.json(200, Array(#"{"status":"ok"}"#.utf8))) })
        router.add(
            Route(.GET, "/gate") { _ in
                .blocking {
                    gate.pass()
                    return .json(200, Array("passed".utf8))
                }
            })
        var o = ServerOptions()
        o.port = 0
        o.eventLoops = 1
        o.workerThreads = 1
        o.maxQueuedJobs = 1
        o.accessLog = false
        o.errorBody = { status, code, message in
            ("application/json", Array(#"{"status":\#(status),"code":"\#(code)","message":"\#(message)"}"#.utf8))
        }
        let server = try HTTPServer(options: o, router: router, logSink: LogSink(fd: 2))
        server.start()
        defer {
            gate.open(10)
            server.shutdown()
            server.wait()
        }
        let running = try RawClient(port: server.port)
        running.send("GET /gate HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(gate.waitForArrivals(1), "the first request holds the only worker")
        let queued = try RawClient(port: server.port)
        queued.send("GET /gate HTTP/1.1\r\nHost: a\r\n\r\n")
        var waiting = false
        for _ in 0..<30_000 where !waiting {
            waiting = server.metrics.render().contains("\npresignd_worker_queue_jobs 1\n")
            if !waiting { usleep(1_000) }
        }
        #expect(waiting, "the second request waits in the queue")

        // The third finds the queue full: answered now, while the worker is still held.
        let refused = try RawClient(port: server.port)
        refused.send("GET /gate HTTP/1.1\r\nHost: a\r\n\r\n")
        let busy = try #require(refused.readResponse())
        #expect(busy.status == 503)
        #expect(busy.header("Retry-After") == "1")
        #expect(busy.header("Content-Type") == "application/json")
        #expect(busy.text == #"{"status":503,"code":"SERVER_BUSY","message":"the server is busy; retry later"}"#)
        #expect(busy.header("Connection") == nil, "the connection stays open")
        refused.send("GET /hello HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(refused.readResponse()?.status == 200, "inline routes are served while the workers are held")
        let metrics = server.metrics.render()
        #expect(metrics.contains("\npresignd_server_busy_total 1\n"))
        #expect(metrics.contains(#"presignd_http_requests_total{route="/gate",method="GET",status="503"} 1"#))
        #expect(gate.arrived.load(ordering: .relaxed) == 1, "the refused request's handler never ran")

        gate.open(2)
        #expect(running.readResponse()?.text == "passed")
        #expect(queued.readResponse()?.text == "passed")
        // With the queue drained, the same route is served again.
        gate.open(1)
        refused.send("GET /gate HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(refused.readResponse()?.text == "passed")
    }
}
