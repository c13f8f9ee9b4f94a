import AppTestSupport
import Foundation
import JSON
import TestSupport
import Testing

/// The worker queue's bound, the application in process on RGW: storage that hangs (a fault proxy holding
/// every storage read until the test lets go) holds both workers, at most two more confirmations wait
/// in the queue, and the rest are answered at once with 503 SERVER_BUSY while the storage calls are still
/// held; after the storage comes back every confirmation, retried ones too, gets its record.
@Suite("Worker queue full: 503 SERVER_BUSY (RGW behind a fault proxy)", .serialized, .heavy(aloneSeconds: 10))
struct ServerBusyTests {
    /// One confirmation's answer: status, code, Retry-After.
    struct Answer: Sendable {
        let status: Int
        let code: String?
        let retryAfter: String?
    }

    /// The answers by key, filled by the client threads.
    final class Answers: @unchecked Sendable {
        private let lock = NSLock()
        private var byKey: [String: Answer] = [:]

        /// Runs `body` with the answers, under the lock.
        func withLock<R>(_ body: (inout [String: Answer]) -> R) -> R {
            lock.lock()
            defer { lock.unlock() }
            return body(&byKey)
        }
    }

    @Test("a hanging store fills the queue: the overflow gets 503 at once, the rest complete on recovery")
    func storageHangs() async throws {
        let s3 = try TestEnvironment.s3()
        let proxy = try FaultProxy(inFrontOf: s3)
        defer { proxy.close() }
        let (env, _) = TestEnvironment.serverEnvironment(
            s3: s3, proxy: proxy,
            extra: [
                // Longer than the test holds a request, however slowly a loaded machine runs it: the hang ends on
                // the test's word, not a timeout.
                "PRESIGN_S3_REQUEST_TIMEOUT_MS": "600000", "PRESIGN_S3_MAX_RETRIES": "0",
                "PRESIGN_SERVER_WORKER_THREADS": "2", "PRESIGN_SERVER_WORKER_QUEUE_LIMIT": "2",
            ])
        let server = try await InProcessApp(environment: env)
        defer { server.stop() }
        var uploaded: [String] = []
        for _ in 0..<8 { uploaded.append(try await StorageFaultTests.uploaded(server, s3)) }
        let keys = uploaded

        // Storage now hangs on every read (the confirmation's HEAD, or its ranged GET with the content check).
        proxy.setRules([.init(.method("HEAD"), .hold), .init(.method("GET"), .hold)])
        defer {  // before the application stops: its workers must not be left inside held calls
            proxy.setRules([])
            proxy.releaseHeld()
        }
        let answers = Answers()
        // All eight in flight at once: each its own task, awaiting its answer without holding a thread.
        let confirmations = Task {
            await withTaskGroup(of: Void.self) { group in
                for key in keys {
                    group.addTask {
                        let r = await PostgresOutageTests.request(
                            server, "POST", "/images", body: #"{"imageKey":"\#(key)"}"#)
                        let answer = Answer(
                            status: r?.status ?? -1, code: r.flatMap(PostgresOutageTests.code),
                            retryAfter: r?.header("Retry-After"))
                        answers.withLock { $0[key] = answer }
                    }
                }
            }
        }
        // Two confirmations hold the two workers inside storage calls and at most two wait in the queue;
        // every other one is answered while the storage calls are still held. (Which ones, and whether the
        // queue takes two or fewer before the workers pick their jobs up, depends on scheduling.)
        #expect(try await onThread { proxy.waitUntilHeld(2) }, "both workers are inside a storage call")
        func refusedSoFar() -> [String: Answer] { answers.withLock { $0 } }
        // Settled: each of the eight is held (2), queued, or answered.
        #expect(
            try await eventually(within: 60, pollMs: 10) {
                refusedSoFar().count + (try await server.metric("presignd_worker_queue_jobs") ?? 0) == 6
            }, "every confirmation is held, queued or answered while the workers are held")
        #expect(proxy.heldCount == 2, "still held when the 503s arrived")
        let refused = refusedSoFar()
        #expect(refused.count >= 4, "at most two run and two wait: \(refused.count) answered")
        for (key, a) in refused {
            #expect(a.status == 503 && a.code == "SERVER_BUSY" && a.retryAfter == "1", "\(key): \(a)")
        }
        #expect(try await server.metric("presignd_server_busy_total") == refused.count, "counted")
        #expect((try await server.metric("presignd_worker_queue_jobs") ?? -1) <= 2, "the queue holds at most two")
        #expect(await PostgresOutageTests.request(server, "GET", "/healthz")?.status == 200, "the loop still serves")

        // Storage comes back: the held and queued ones complete, the refused ones succeed when retried.
        proxy.setRules([])
        proxy.releaseHeld()
        await confirmations.value
        let final = answers.withLock { $0 }
        #expect(final.values.filter { $0.status == 201 }.count == 8 - refused.count, "\(final)")
        for key in refused.keys {
            let (status, _) = try await StorageFaultTests.confirm(server, key)
            #expect(status == 201, "\(key) after the retry")
        }
        let after = try #require(await PostgresOutageTests.request(server, "GET", "/metrics")).text
        #expect(after.contains("\npresignd_worker_queue_jobs 0\n"))
    }

    @Test("on a compatibility route the busy 503 comes in the app's envelope (client B), Retry-After kept")
    func busyInClientBsEnvelope() async throws {
        let s3 = try TestEnvironment.s3()
        let proxy = try FaultProxy(inFrontOf: s3)
        defer { proxy.close() }
        let (server, _) = try await CompatFlowTests.start(
            .sqlite, profiles: "clientB",
            extra: proxy.serverSettings(s3).merging([
                "PRESIGN_S3_REQUEST_TIMEOUT_MS": "600000", "PRESIGN_S3_MAX_RETRIES": "0",
                "PRESIGN_SERVER_WORKER_THREADS": "1", "PRESIGN_SERVER_WORKER_QUEUE_LIMIT": "1",
            ]) { $1 })
        defer { server.stop() }
        let jpeg = try CompatFlowTests.fixture("jpeg-baseline-64x48.jpg")
        var uploaded: [String] = []
        for _ in 0..<4 { uploaded.append(try await CompatFlowTests.uploadLikeB(server, s3, user: "7", bytes: jpeg)) }
        let keys = uploaded

        proxy.setRules([.init(.method("HEAD"), .hold), .init(.method("GET"), .hold)])
        defer {  // before the application stops: its workers must not be left inside held calls
            proxy.setRules([])
            proxy.releaseHeld()
        }
        final class Replies: @unchecked Sendable {
            let lock = NSLock()
            var byQuest: [Int: WireResponse?] = [:]
            var count: Int { lock.withLock { byQuest.count } }
        }
        let replies = Replies()
        let saves = Task {
            await withTaskGroup(of: Void.self) { group in
                for (quest, key) in keys.enumerated() {
                    group.addTask {
                        let r = try? await CompatFlowTests.send(
                            server, "POST", "/api/v1/quests/\(quest + 1)/active", user: "7",
                            body: #"{"imageKey":"\#(key)"}"#)
                        replies.lock.withLock { replies.byQuest[quest + 1] = .some(r) }
                    }
                }
            }
        }
        // One save holds the only worker inside a storage call, at most one waits (whether the queue took
        // it before the worker took the first depends on scheduling): the others are answered now.
        #expect(try await onThread { proxy.waitUntilHeld(1) }, "the worker is inside a storage call")
        #expect(
            try await eventually(within: 60, pollMs: 10) {
                replies.count + (try await server.metric("presignd_worker_queue_jobs") ?? 0) == 3
            }, "every save is held, queued or answered while storage hangs")
        #expect(proxy.heldCount == 1)
        let refused = replies.lock.withLock { replies.byQuest }
        #expect((2...3).contains(refused.count), "one runs, at most one waits: \(refused.count) answered")
        for (quest, reply) in refused {
            let r = try #require(reply, "quest \(quest): no answer")
            #expect(r.status == 503, "quest \(quest): \(r.text)")
            #expect(r.header("Retry-After") == "1")
            let e = try CompatFlowTests.decode(CompatFlowTests.BError.self, r)
            #expect(e.success == false && e.data == nil && !e.message.isEmpty, "\(r.text)")
        }

        proxy.setRules([])
        proxy.releaseHeld()
        await saves.value
        for quest in 1...4 where refused[quest] == nil {
            let r = replies.lock.withLock { replies.byQuest[quest] ?? nil }
            #expect(r?.status == 200, "quest \(quest) after recovery: \(r?.text ?? "no answer")")
        }
        for quest in refused.keys {
            let r = try await CompatFlowTests.send(
                server, "POST", "/api/v1/quests/\(quest)/active", user: "7",
                body: #"{"imageKey":"\#(keys[quest - 1])"}"#)
            #expect(r.status == 200, "quest \(quest) retried: \(r.text)")
        }
    }
}
