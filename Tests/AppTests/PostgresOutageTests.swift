import AppTestSupport
import Crypto
import Foundation
import JSON
import ObjectStore
import ObjectStoreTestSupport
import Records
import RecordsTestSupport
import SigV4
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// PostgreSQL restarted (fast, immediate) and stopped for 20 s under confirmation load, against the
/// application in process, RGW and a PostgreSQL cluster of the test's own (so the other PostgreSQL tests never see it go
/// down). During the fault confirmations answer 503 STORE_UNAVAILABLE, `/readyz` says the database is
/// unavailable, and issuing answers 503 STORE_UNAVAILABLE with `Retry-After` within
/// `records.intentCommitTimeoutMs` plus slack, never a URL while the cluster is stopped (a URL is
/// answered only once its intent is stored, issue 21); afterwards the pool has reconnected by itself,
/// every issued URL confirms (its intent was stored), every 201 is stored, every key converged to one
/// record, and each record's object is in RGW with the recorded size.
@Suite("PostgreSQL outages (own cluster, RGW)", .serialized, .heavy(aloneSeconds: 35))
struct PostgresOutageTests {
    enum Fault: String, CaseIterable, Sendable, CustomStringConvertible {
        case restartFast, restartImmediate, stopFor20Seconds
        var description: String { rawValue }
    }

    /// What the writers saw, shared by their threads.
    final class Outcomes: @unchecked Sendable {
        private let lock = NSLock()
        private var ids: [String: Set<String>] = [:]
        private var created: [String: String] = [:]
        private var retryable: Set<String> = []
        private(set) var confirm503 = 0
        private(set) var issue503 = 0
        private(set) var issuedDuringOutage = 0
        /// Set once the cluster's stop has returned, cleared before it starts again.
        private var stopped = false
        private(set) var problems: [String] = []
        private var ackCount = 0

        func locked<R>(_ body: () -> R) -> R {
            lock.lock()
            defer { lock.unlock() }
            return body()
        }
        var acks: Int { locked { ackCount } }
        var pendingRetries: [String] { locked { Array(retryable) } }
        var allIds: [String: Set<String>] { locked { ids } }
        var createdRecords: [String: String] { locked { created } }
        func answered(_ key: String, id: String, created isNew: Bool) {
            locked {
                ids[key, default: []].insert(id)
                retryable.remove(key)
                if isNew {
                    if let old = created[key] { problems.append("\(key): a second 201 (\(old), \(id))") }
                    created[key] = id
                    ackCount += 1
                }
            }
        }
        func retryLater(_ key: String) { locked { _ = retryable.insert(key) } }
        func sawConfirm503() { locked { confirm503 += 1 } }
        func sawIssue503() { locked { issue503 += 1 } }
        func issuedWhileDown() { locked { issuedDuringOutage += 1 } }
        var storeStopped: Bool {
            get { locked { stopped } }
            set { locked { stopped = newValue } }
        }
        func problem(_ p: String) { locked { problems.append(p) } }
    }

    /// One request as `user`; nil when none came.
    static func request(
        _ server: some HTTPTarget, _ method: String, _ path: String, body: String? = nil, user: String = "9"
    ) async -> WireResponse? {
        try? await server.exchange(method, path, headers: "X-User-Id: \(user)\r\n", body: body)
    }

    static func code(_ r: WireResponse) -> String? { try? JSONValue(parsing: r.body)["code"]?.stringValue }

    /// One confirmation of `key`: true when it is settled (201 or 200), false when it should be retried.
    static func confirm(_ server: some HTTPTarget, _ key: String, _ outcomes: Outcomes) async -> Bool {
        guard let r = await request(server, "POST", "/images", body: #"{"imageKey":"\#(key)"}"#) else {
            outcomes.problem("confirm \(key): no answer")
            return false
        }
        switch r.status {
        case 201, 200:
            guard let id = try? JSONValue(parsing: r.body)["id"]?.stringValue else {
                outcomes.problem("confirm \(key): \(r.status) without an id")
                return false
            }
            outcomes.answered(key, id: id, created: r.status == 201)
            return true
        case 503:
            if code(r) != "STORE_UNAVAILABLE" { outcomes.problem("confirm \(key): 503 \(r.text)") }
            outcomes.sawConfirm503()
            outcomes.retryLater(key)
            return false
        default:
            outcomes.problem("confirm \(key): \(r.status) \(r.text)")
            return false
        }
    }

    /// The commit timeout the test sets, and the scheduling slack allowed on top of it (docs/records.md).
    static let commitTimeoutMs = 1000
    static let slackMs = 2000

    /// Issue (client P's GET, which waits for its intent's commit, and client B's POST, which also asks
    /// the store who holds the key, in turn), upload to RGW, confirm; until `stop`.
    static func writer(server: InProcessApp, s3: TestEnvironment.S3, outcomes: Outcomes, stop: StopFlag) async {
        var clientP = false
        while !stop.isSet {
            clientP.toggle()
            let uuid = UUID().uuidString.lowercased()
            let stoppedBefore = outcomes.storeStopped
            // Timed by the application's own answer (not the writer's wait to run again on a loaded machine).
            let timed =
                clientP
                ? try? await server.timedExchange(
                    "GET", "/presigned-url?type=PROFILE&ext=jpg", headers: "X-User-Id: 9\r\n")
                : try? await server.timedExchange(
                    "POST", "/presigned-url", headers: "X-User-Id: 9\r\n",
                    body: #"{"contentType":"image/jpeg","imageKey":"\#(uuid)"}"#)
            guard let timed else {
                outcomes.problem("issue: no answer")
                return
            }
            let issued = timed.response
            let elapsedMs = Int(timed.answeredAfter / .milliseconds(1))
            if issued.status == 503 {
                // Not stored in time (or the queue full, or client B's key check failed): 503 with
                // Retry-After, no URL, within the commit timeout plus slack.
                if code(issued) != "STORE_UNAVAILABLE" || issued.header("Retry-After") == nil
                    || issued.text.contains("Url\"")
                {
                    outcomes.problem("issue: 503 \(issued.text)")
                }
                if elapsedMs > commitTimeoutMs + slackMs { outcomes.problem("issue: 503 after \(elapsedMs) ms") }
                outcomes.sawIssue503()
                try? await Task.sleep(for: .milliseconds(20))  // pacing only: the next attempt's answer is what counts
                continue
            }
            let json = try? JSONValue(parsing: issued.body)
            guard issued.status == 200, let url = json?[clientP ? "presignedUrl" : "signedUrl"]?.stringValue,
                let key = json?[clientP ? "key" : "imageKey"]?.stringValue, let range = url.range(of: s3.endpoint)
            else {
                outcomes.problem("issue: \(issued.status) \(issued.text)")
                return
            }
            // Begun and answered while the cluster was stopped: a URL whose intent cannot be stored.
            if stoppedBefore && outcomes.storeStopped { outcomes.issuedWhileDown() }
            let target = String(url[range.upperBound...])
            let put = try? await ClientPFlowTests.put(
                s3, target: target, contentType: "image/jpeg",
                body: TestImages.jpeg(width: 4, height: 3, tail: Array(uuid.utf8)))
            guard put == 200 else {
                outcomes.problem("upload: \(put ?? -1)")
                return
            }
            _ = await confirm(server, key, outcomes)
        }
    }

    /// Polls `/readyz` until its database check reads `value` (within a minute).
    static func waitForDatabase(_ server: some HTTPTarget, _ value: String) async -> Bool {
        await eventually(within: 60, pollMs: 10) {
            guard let r = await request(server, "GET", "/readyz") else { return false }
            return (try? JSONValue(parsing: r.body)["checks"]?["database"]?.stringValue) == value
        }
    }

    @Test("an outage under load: 503s while down, reconnection, every 201 stored once", arguments: Fault.allCases)
    func outage(fault: Fault) async throws {
        let s3 = try TestEnvironment.s3()
        let cluster = try await onThread { try PostgresCluster() }
        defer { cluster.destroy() }
        let (env, _) = TestEnvironment.serverEnvironment(
            s3: s3,
            extra: [
                "PRESIGN_RECORDS_URL": cluster.url, "PRESIGN_RECORDS_POOL_SIZE": "4",
                "PRESIGN_RECORDS_INTENT_BATCH_SIZE": "8", "PRESIGN_RECORDS_INTENT_QUEUE_LIMIT": "40",
                "PRESIGN_RECORDS_INTENT_COMMIT_TIMEOUT_MS": "\(Self.commitTimeoutMs)",
            ])
        let server = try await InProcessApp(environment: env)
        defer { server.stop() }
        let outcomes = Outcomes()
        let stopFlag = StopFlag()
        let writers = Task {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<6 {
                    group.addTask { await Self.writer(server: server, s3: s3, outcomes: outcomes, stop: stopFlag) }
                }
            }
        }
        // The bounds on the acknowledgements only keep a broken server from hanging the suite: a machine
        // running every other suite at once may need minutes for them.
        #expect(await eventually(within: 180, pollMs: 10) { outcomes.acks >= 20 }, "the load runs before the fault")

        switch fault {
        case .restartFast: try await onThread { try cluster.restartFast() }
        case .restartImmediate: try await onThread { try cluster.restartImmediate() }
        case .stopFor20Seconds:
            try await onThread { try cluster.stop() }
            outcomes.storeStopped = true
            #expect(await Self.waitForDatabase(server, "unavailable"), "/readyz: database unavailable")
            #expect(
                await eventually(within: 60, pollMs: 10) { outcomes.confirm503 > 0 },
                "confirmations answer 503 STORE_UNAVAILABLE")
            #expect(
                await eventually(within: 60, pollMs: 10) { outcomes.issue503 > 0 },
                "issuing answers 503 while no intent can be stored")
            #expect(await server.log.line(containing: "intent batch not stored") != nil, "the outage is logged")
            // The rest of the 20 seconds, the server stays up and answers.
            let downSince = Date()
            while Date().timeIntervalSince(downSince) < 20 {
                #expect(await Self.request(server, "GET", "/healthz")?.status == 200)
                try await Task.sleep(for: .milliseconds(500))
            }
            #expect(outcomes.issuedDuringOutage == 0, "URLs answered while the cluster was stopped")
            outcomes.storeStopped = false
            try await onThread { try cluster.start() }
        }
        // The pool reconnects by itself: the database is ready again and confirmations succeed again.
        #expect(await Self.waitForDatabase(server, "ok"), "/readyz: database ok again without a restart")
        let acksAfterFault = outcomes.acks
        #expect(
            await eventually(within: 180, pollMs: 10) { outcomes.acks >= acksAfterFault + 20 },
            "confirmations succeed after the fault")
        stopFlag.set()
        await writers.value

        // Every key that got a 503 converges when confirmed again: to one record, never a second one.
        for key in outcomes.pendingRetries {
            #expect(
                await eventually(within: 5, pollMs: 10) { await Self.confirm(server, key, outcomes) },
                "\(key) converges")
        }
        #expect(outcomes.problems.isEmpty, "\(outcomes.problems.prefix(10))")
        for (key, ids) in outcomes.allIds { #expect(ids.count == 1, "\(key) answered with records \(ids)") }

        // Every acknowledged record is stored, whole, with its object in RGW at the recorded size.
        let store = try RecordStoreFactory.open(url: cluster.url, poolSize: 1, busyTimeoutMs: 5000)
        let client = try s3.client()
        for (key, id) in outcomes.createdRecords {
            let record = try #require(try store.record(imageKey: key), "the record of \(key) (201 \(id))")
            #expect(record.id == id && record.ownerId == "9")
            let object = try client.head(key: record.objectKey)
            #expect(object?.size == record.size && record.size > 0, "\(key): object \(String(describing: object))")
        }
        // Nothing the log wrote during the outage breaks its JSON lines (libpq messages carry quotes and
        // newlines).
        for line in server.log.lines {
            #expect((try? JSONValue(parsing: Array(line.utf8))) != nil, "not JSON: \(line)")
        }
        #expect(outcomes.acks >= 40)
    }

}

/// A flag threads read and one sets.
final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
    func set() {
        lock.lock()
        value = true
        lock.unlock()
    }
}
