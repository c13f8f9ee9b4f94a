import AppTestSupport
import Dispatch
import Foundation
import HTTP1
import HTTPServer
import Synchronization
import System
import TestSupport
import Testing

/// The in-memory client the in-process tests stand on: it answers as the server answers over a socket
/// (the same router served by `HTTPServer` on loopback, request by request, the same status, headers
/// and body but for `Date` and `X-Request-Id`), and it carries every form of a handler's answer: a
/// worker's (503 `SERVER_BUSY` when the pool's queue is full), a `Responder`'s given later (awaited, not
/// polled), one let go unanswered (500), and none at all (it gives up at its time-out).
@Suite("In-memory client")
struct InMemoryClientTests {
    /// A worker held until the test lets it go.
    final class Gate: Sendable {
        private let release = DispatchSemaphore(value: 0)
        private let entered = Atomic<Int>(0)
        /// Workers inside `pass()`.
        var waiting: Int { entered.load(ordering: .relaxed) }
        /// Blocks the calling worker until `open()`.
        func pass() {
            entered.add(1, ordering: .relaxed)
            release.wait()
        }
        /// Lets `count` held workers go.
        func open(_ count: Int = 1) { for _ in 0..<count { release.signal() } }
    }

    /// Responders kept by `/kept`, never answered while the test holds them.
    final class Kept: Sendable {
        let responders = Mutex<[Responder]>([])
    }

    /// The routes of every form, and one with an application's own error shape.
    static func router(gate: Gate = Gate(), kept: Kept = Kept()) -> Router {
        var router = Router()
        router.add(Route(.GET, "/now") { _ in .respond(.json(200, Array(#"{"now":true}"#.utf8))) })
        router.add(
            Route(.POST, "/echo", maxBodyBytes: 16) { request in
                .respond(Response(status: 200, headers: [("X-Length", "\(request.body.count)")], body: request.body))
            })
        router.add(
            Route(.GET, "/items/{id}") { request in .respond(.json(200, Array((request.parameter("id") ?? "").utf8))) })
        router.add(Route(.GET, "/work") { _ in .blocking { .json(200, Array("worked".utf8)) } })
        router.add(
            Route(.GET, "/held") { _ in
                .blocking {
                    gate.pass()
                    return .json(200, Array("held".utf8))
                }
            })
        router.add(
            Route(.GET, "/later") { _ in
                .deferred { responder in
                    PThread.detach(name: "test-later") {
                        PThread.sleep(milliseconds: 200)
                        responder.respond(.json(200, Array("later".utf8)))
                    }
                }
            })
        router.add(
            Route(.GET, "/worker-later") { _ in
                .blockingDeferred { responder in responder.respond(.json(202, Array("accepted".utf8))) }
            })
        router.add(Route(.GET, "/dropped") { _ in .deferred { _ in } })
        router.add(
            Route(.GET, "/kept") { _ in .deferred { responder in kept.responders.withLock { $0.append(responder) } } })
        router.add(
            Route(
                .PUT, "/app/{id}", maxBodyBytes: 8,
                errorRenderer: { status, code, message in
                    .json(status, Array(#"{"ok":false,"error":"\#(code)","text":"\#(message)"}"#.utf8))
                }
            ) { _ in .respond(.json(200, Array(#"{"ok":true}"#.utf8))) })
        return router
    }

    /// The server's options as the application sets them (the API's error body).
    static var options: ServerOptions {
        var options = ServerOptions()
        options.port = 0
        options.eventLoops = 1
        options.workerThreads = 2
        options.accessLog = false
        options.errorBody = { _, code, message in
            ("application/json", Array(#"{"code":"\#(code)","message":"\#(message)"}"#.utf8))
        }
        return options
    }

    /// A response without what differs from one answer to the next (`Date`, `X-Request-Id`).
    static func comparable(_ r: WireResponse) -> String {
        let fields = r.headers.filter { !["date", "x-request-id"].contains($0.name.lowercased()) }
            .map { "\($0.name): \($0.value)" }
        return "\(r.status)\n" + fields.joined(separator: "\n") + "\n\n" + r.text
    }

    /// Requests each answered once, the server's own refusals among them.
    static let requests: [String] = [
        "GET /now HTTP/1.1\r\nHost: a\r\n\r\n",
        "HEAD /now HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET /nope HTTP/1.1\r\nHost: a\r\n\r\n",
        "DELETE /now HTTP/1.1\r\nHost: a\r\n\r\n",
        "BREW /now HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET /items/%ZZ HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET /items/abc HTTP/1.1\r\nHost: a\r\nX-Request-Id: given-1\r\n\r\n",
        "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello",
        "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 20\r\n\r\n",
        "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n\r\n",
        "POST /echo HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nhi",
        "GET /now HTTP/1.1\r\nHost: a\r\nBad Header\r\n\r\n",
        "GET /now HTTP/1.0\r\n\r\n",
        "GET /now HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
        "GET /work HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET /later HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET /worker-later HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET /dropped HTTP/1.1\r\nHost: a\r\n\r\n",
        "PUT /app/1 HTTP/1.1\r\nHost: a\r\nContent-Length: 9\r\n\r\n",
        "GET /app/1 HTTP/1.1\r\nHost: a\r\n\r\n",
        "PUT /app/1 HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n\r\n",
    ]

    @Test("every request is answered as the server answers it over a socket, but for Date and X-Request-Id")
    func sameAnswersAsTheServer() async throws {
        let router = Self.router()
        let server = try HTTPServer(options: Self.options, router: router)
        server.start()
        defer {
            server.shutdown()
            server.wait()
        }
        let pool = WorkerPool(threads: 2)
        defer { pool.shutdown() }
        let client = InMemoryClient(router: router, options: Self.options, blocking: .pool(pool))
        for request in Self.requests {
            let overSocket = try await SocketTarget(port: server.port).exchange(request)
            let inMemory = try await client.exchange(Array(request.utf8))
            #expect(
                Self.comparable(inMemory) == Self.comparable(overSocket),
                "\(request.prefix(40).debugDescription)")
        }
    }

    @Test("the request id: a well-formed X-Request-Id is echoed, else one is made; a HEAD's answer has no body")
    func requestIdAndHead() async throws {
        let client = InMemoryClient(router: Self.router(), options: Self.options, blocking: .inline)
        let given = try await client.exchange("GET", "/now", headers: "X-Request-Id: trace-7\r\n")
        #expect(given.header("X-Request-Id") == "trace-7")
        let made = try await client.exchange("GET", "/now", headers: "X-Request-Id: not well formed!\r\n")
        #expect(made.header("X-Request-Id")?.hasPrefix("memory-") == true)
        let head = try await client.exchange("HEAD", "/now")
        #expect(head.status == 200 && head.body.isEmpty)
        #expect(head.header("Content-Length") == "12")
    }

    @Test("the bytes of one connection: pipelined requests in order, 100 Continue, nothing after a close")
    func connectionBytes() async throws {
        let client = InMemoryClient(router: Self.router(), options: Self.options, blocking: .inline)
        let two = try await client.send(
            Array("GET /items/1 HTTP/1.1\r\nHost: a\r\n\r\nGET /items/2 HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
        #expect(WireResponse.all(in: two).map(\.text) == ["1", "2"])
        let closing = try await client.send(
            Array(
                "GET /items/1 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\nGET /items/2 HTTP/1.1\r\nHost: a\r\n\r\n"
                    .utf8))
        #expect(WireResponse.all(in: closing).map(\.text) == ["1"])
        let continued = try await client.send(
            Array("POST /echo HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nhi".utf8))
        #expect(continued.starts(with: Array("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n".utf8)))
        // A body that stops coming: the server's 408 (in the route's shape), closing; a head that stops
        // coming: no answer at all.
        let stalled = try await client.exchange("PUT /app/1 HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nab")
        #expect(stalled.status == 408 && stalled.text.contains(#""error":"REQUEST_TIMEOUT""#), "\(stalled.text)")
        #expect(stalled.header("Connection") == "close")
        #expect(try await client.send(Array("GET /now HTTP/1.1\r\nHost:".utf8)).isEmpty)
    }

    @Test("a full worker queue: 503 SERVER_BUSY with Retry-After at once, while the worker is held")
    func busy() async throws {
        // The held and queued requests are tasks that must run while this test waits for them: on a
        // queue of their own, not on the cooperative pool other tests of the run may keep busy.
        let executor = OwnQueueExecutor(label: "presignd-test-busy")
        try await withTaskExecutorPreference(executor) { try await busyOn(executor) }
    }

    private func busyOn(_ executor: OwnQueueExecutor) async throws {
        let gate = Gate()
        let pool = WorkerPool(threads: 1, maxQueued: 1)
        defer { pool.shutdown() }
        defer { gate.open(2) }  // first: the pool's workers must not be left in the gate
        let metrics = ServerMetrics(shards: 1)
        pool.registerMetrics(in: metrics)
        let client = InMemoryClient(
            router: Self.router(gate: gate), options: Self.options, metrics: metrics, blocking: .pool(pool))
        // The only worker held, then one job waiting for it: the queue is full.
        let held = Task(executorPreference: executor) { try await client.exchange("GET", "/held") }
        #expect(await eventually(within: 60) { gate.waiting == 1 }, "the only worker is held")
        let queued = Task(executorPreference: executor) { try await client.exchange("GET", "/work") }
        #expect(await eventually(within: 60) { pool.queuedCount == 1 }, "one job waits")
        let refused = try await client.exchange("GET", "/work")
        #expect(refused.status == 503)
        #expect(refused.header("Retry-After") == "1")
        #expect(refused.text == #"{"code":"SERVER_BUSY","message":"the server is busy; retry later"}"#)
        gate.open()
        #expect(try await held.value.text == "held")
        #expect(try await queued.value.text == "worked")
        let rendered = metrics.render()
        #expect(rendered.contains("presignd_server_busy_total 1"), "\(rendered)")
        #expect(rendered.contains(#"presignd_http_requests_total{route="/work",method="GET",status="503"} 1"#))
        #expect(rendered.contains(#"presignd_http_requests_total{route="/work",method="GET",status="200"} 1"#))
        #expect(rendered.contains(#"presignd_http_requests_total{route="/held",method="GET",status="200"} 1"#))
    }

    @Test("a deferred answer is awaited and timed from the request to the answer; one never given times out")
    func laterAndNever() async throws {
        let kept = Kept()
        let client = InMemoryClient(
            router: Self.router(kept: kept), options: Self.options, blocking: .inline,
            answerTimeout: .milliseconds(300))
        let later = try await client.timedExchange(Array("GET /later HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
        #expect(later.response.text == "later")
        #expect(later.answeredAfter >= .milliseconds(200), "answered when the other thread answered")
        let dropped = try await client.exchange("GET", "/dropped")
        #expect(dropped.status == 500 && dropped.text.contains("INTERNAL_ERROR"))
        await #expect(throws: InMemoryClient.NoAnswer.self) { try await client.exchange("GET", "/kept") }
        #expect(kept.responders.withLock { $0.count } == 1, "the responder is still held: no answer was made up")
    }
}
