import Foundation
import JSON
import Records
import RecordsTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Three instances on one PostgreSQL and RGW behind HAProxy (`scripts/instances.sh`): a rolling restart
/// loses no request, kill -9 of one loses no acknowledged record, and one user's rate limit holds across
/// the instances within the documented slack (docs/operations.md, "Running several instances").
@Suite("Several instances behind HAProxy", .serialized, .heavy(aloneSeconds: 40))
struct InstancesHarnessTests {
    /// The issue route as user `user`.
    static func issue(_ user: String) -> String {
        "GET /presigned-url?type=PROFILE&ext=jpg HTTP/1.1\r\nHost: a\r\nX-User-Id: \(user)\r\n\r\n"
    }

    /// One JSON POST as user `user`.
    static func post(_ path: String, _ body: String, user: String) -> String {
        RawClient.request("POST", path, headers: "X-User-Id: \(user)\r\n", body: body)
    }

    /// Whether process `pid` runs `binary`: its /proc entry is there, it is not a zombie (an exited
    /// process its parent has not reaped yet) and its command line names `binary` (not another program
    /// that was given the PID since).
    static func runs(_ pid: Int32, _ binary: String) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let state = status.split(separator: "\n").first(where: { $0.hasPrefix("State:") })
        else { return false }
        if state.dropFirst("State:".count).trimmingCharacters(in: .whitespaces).hasPrefix("Z") { return false }
        let cmdline = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data()
        return String(decoding: cmdline, as: UTF8.self).contains(binary)
    }

    @Test("a start that fails half-way (HAProxy cannot bind its port) leaves no instance running")
    func failedStartStopsWhatItStarted() async throws {
        // A port that is taken: the instances start, then HAProxy exits, and the start fails.
        let taken = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(taken >= 0)
        defer { close(taken) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(taken, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 && listen(taken, 1) == 0
            }
        }
        try #require(bound)
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(taken, $0, &len) }
        }
        let port = Int(UInt16(bigEndian: addr.sin_port))
        let dir = Temporary.directory("instances")
        await #expect(throws: (any Error).self) {
            try await InstancesHarness.start(extra: ["HAPROXY_PORT": "\(port)"], dir: dir)
        }
        // Every instance it had started (a PID file each) is gone.
        let pids = try (0..<3).map { n -> Int32 in
            let text = try String(contentsOfFile: dir + "/\(n).pid", encoding: .utf8)
            return try #require(Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        for pid in pids {
            #expect(
                !Self.runs(pid, ServerProcess.binary.path),
                "instance pid \(pid) is still running after the failed start")
        }
    }

    @Test("rolling restart (SIGTERM each instance in turn, then start it again) under steady load: 0 failed requests")
    func rollingRestartLosesNoRequest() async throws {
        // No retries in HAProxy (as with a balancer like kube-proxy): only the drain delay keeps requests
        // whole; with PRESIGN_SERVER_DRAIN_DELAY_MS=0 this fails. 6 s: far above the health check's 250 ms,
        // so that HAProxy marks the instance down in time even on a machine loaded by the other tests.
        let harness = try await InstancesHarness.start(extra: [
            "HAPROXY_RETRIES": "0", "PRESIGN_SERVER_DRAIN_DELAY_MS": "6000",
        ])
        defer { harness.stop() }
        let load = SteadyLoad(port: harness.port, clients: 4) { client, _ in Self.issue("r\(client)") }
        defer { load.stop() }
        #expect(await load.waitForOK(atLeast: 50, from: 0))
        for n in 0..<3 {
            // `term` returns once the instance has exited: through its drain delay (/readyz 503 while the
            // rest is served) and its drain. Then it comes back and HAProxy has it UP again.
            try await harness.term(n)
            let before = load.ok
            #expect(await load.waitForOK(atLeast: 20, from: before), "requests go on with instance \(n) down")
            try await harness.up(n)
            #expect(await load.waitForOK(atLeast: 20, from: load.ok))
        }
        await load.stopping()
        let failures = load.failures
        #expect(failures.isEmpty, "\(failures.count) failed of \(load.ok + failures.count): \(failures.prefix(3))")
        // Each instance went through the pause for the balancer, then stopped (its log before the restart).
        for n in 0..<3 {
            let log = try String(contentsOfFile: harness.dir + "/\(n).log.old", encoding: .utf8)
            #expect(log.contains(#""msg":"draining""#) && log.contains(#""delayMs":6000"#), "instance \(n)")
            #expect(log.contains(#""msg":"stopped""#), "instance \(n)")
        }
        print("rolling restart: \(load.ok) requests through HAProxy, \(failures.count) failed")
    }

    @Test("kill -9 one instance under confirmations: every acknowledged record stays, failures are retried")
    func killNineLosesNoAcknowledgedRecord() async throws {
        let harness = try await InstancesHarness.start(extra: ["PRESIGN_S3_VERIFY_UPLOADS": "false"])
        defer { harness.stop() }
        // The intents first, all of them stored before the confirmations start (this test is about
        // records).
        let keys = (0..<240).map { _ in UUID().uuidString.lowercased() }
        let balancer = SocketTarget(port: harness.port)
        for (i, key) in keys.enumerated() {
            let r = try await balancer.exchange(
                Self.post("/presigned-url", #"{"contentType":"image/jpeg","imageKey":"\#(key)"}"#, user: "k\(i % 4)"))
            try #require(r.status == 200, "issue: \(r.status) \(r.text)")
        }
        let store = try RecordStoreFactory.open(url: harness.recordsURL, poolSize: 1, busyTimeoutMs: 5000)
        var pending = keys
        _ = try await eventually(within: 30, pollMs: 20) {
            pending = try pending.filter { try store.intent(imageKey: $0) == nil }
            return pending.isEmpty
        }
        try #require(pending.isEmpty, "\(pending.count) intents not stored")

        // Four clients confirm them through HAProxy; instance 1 is killed once 40 were acknowledged.
        let queue = KeyQueue(Array(keys.enumerated()))
        let acked = AckBox()
        let failed = KeyQueue([])
        let group = DispatchGroup()
        for _ in 0..<4 {
            DispatchQueue.global().async(group: group) {
                var connection: RawClient?
                while let (i, key) = queue.next() {
                    if connection == nil { connection = try? RawClient(port: harness.port, timeoutMs: 15_000) }
                    guard let c = connection else {
                        failed.add((i, key))
                        continue
                    }
                    c.send(Self.post("/images", #"{"imageKey":"\#(key)"}"#, user: "k\(i % 4)"))
                    guard let r = c.readResponse() else {
                        failed.add((i, key))
                        connection = nil
                        continue
                    }
                    if r.status == 201 || r.status == 200, let id = try? JSONValue(parsing: r.body)["id"]?.stringValue {
                        acked.add(imageKey: key, id: id, owner: "k\(i % 4)")
                    } else {
                        acked.unexpected("\(r.status) \(r.text)")
                    }
                }
            }
        }
        _ = await eventually(within: 60, pollMs: 2) { acked.count >= 40 }
        try await harness.kill9(1)
        _ = try await onThread { group.wait() }
        // Only requests in flight on the killed instance can have failed: at most one per client.
        let failures = failed.all
        #expect(failures.count <= 4, "\(failures.count) failed")
        #expect(acked.unexpectedAnswers.isEmpty, "\(acked.unexpectedAnswers.prefix(5))")
        // Retried (after the instance is back), each one succeeds: 201, or 200 when its first try had landed.
        try await harness.up(1)
        for (i, key) in failures {
            let r = try await balancer.exchange(Self.post("/images", #"{"imageKey":"\#(key)"}"#, user: "k\(i % 4)"))
            #expect(r.status == 201 || r.status == 200, "retry: \(r.status) \(r.text)")
            if let id = try? JSONValue(parsing: r.body)["id"]?.stringValue {
                acked.add(imageKey: key, id: id, owner: "k\(i % 4)")
            }
        }
        #expect(acked.count == keys.count)
        var missing = 0
        for a in acked.all {
            let record = try store.record(imageKey: a.imageKey)
            if record?.id != a.id || record?.ownerId != a.owner { missing += 1 }
        }
        #expect(missing == 0, "\(missing) of \(acked.count) acknowledged records are not in the store")
        print("kill -9 behind HAProxy: \(acked.count) records acknowledged, \(failures.count) retried, none lost")
    }

    @Test("one user's limit holds across three instances within one burst of slack (shared buckets)")
    func rateLimitHoldsAcrossInstances() async throws {
        // 6 a minute with a 100-second burst: a bucket of 10, refilled at one token per 10 s.
        let harness = try await InstancesHarness.start(extra: [
            "PRESIGN_LIMITS_ENABLED": "true", "PRESIGN_LIMITS_ISSUE_PER_USER_PER_MINUTE": "6",
            "PRESIGN_LIMITS_BURST": "100", "PRESIGN_LIMITS_ISSUE_PER_ADDRESS_PER_MINUTE": "1000000",
            "PRESIGN_LIMITS_SYNC_INTERVAL_MS": "100",
        ])
        defer { harness.stop() }
        // Every instance has synced twice after all three were up, so each knows there are three.
        let ports = try (0..<3).map { try harness.instancePort($0) }
        for _ in 0..<2 {
            var start: [Int] = []
            for port in ports { start.append(try await Self.syncs(port)) }
            _ = try await eventually(within: 30, pollMs: 20) {
                for (port, before) in zip(ports, start) where try await Self.syncs(port) <= before { return false }
                return true
            }
        }
        let began = Date()
        let balancer = SocketTarget(port: harness.port)
        var allowed = 0
        var limited = 0
        for _ in 0..<45 {
            let r = try await balancer.exchange(Self.issue("one-user"))
            if r.status == 200 { allowed += 1 } else if r.status == 429 { limited += 1 }
        }
        let seconds = Date().timeIntervalSince(began)
        // One server would allow 10 (plus what refills meanwhile); three with their own buckets, 30. Shared:
        // at most the bucket, one more burst of slack, and the refill over the run.
        let bound = 10 + 10 + Int((seconds / 10).rounded(.up))
        #expect(allowed + limited == 45)
        #expect(allowed >= 1 && allowed <= bound, "allowed \(allowed) in \(seconds) s (bound \(bound))")
        // Another user is not affected.
        #expect(try await balancer.exchange(Self.issue("another-user")).status == 200)
        print("shared rate limit: \(allowed) of 45 allowed through three instances (bucket 10, bound \(bound))")
    }

    @Test("one user's daily upload quota holds exactly across three instances; the 429 names it and its reset")
    func quotaHoldsAcrossInstances() async throws {
        let harness = try await InstancesHarness.start(extra: [
            "PRESIGN_LIMITS_ENABLED": "true", "PRESIGN_LIMITS_ISSUE_PER_USER_PER_MINUTE": "100000",
            "PRESIGN_LIMITS_ISSUE_PER_ADDRESS_PER_MINUTE": "1000000", "PRESIGN_LIMITS_UPLOADS_PER_USER_PER_DAY": "5",
        ])
        defer { harness.stop() }
        let user = "quota-\(UUID().uuidString.prefix(8).lowercased())"
        let clients = try (0..<3).map { SocketTarget(port: try harness.instancePort($0)) }
        var allowed = 0
        var refusals: [WireResponse] = []
        // All nine count against one UTC day's quota.
        UTCDay.awayFromMidnight()
        // Round robin over the instances themselves: each sees a third of the requests.
        for n in 0..<9 {
            let r = try await clients[n % 3].exchange(Self.issue(user))
            if r.status == 200 { allowed += 1 } else { refusals.append(r) }
        }
        // The reservations are counted in the store, in each intent's own commit: exactly the quota.
        #expect(allowed == 5)
        #expect(refusals.count == 4)
        for r in refusals {
            #expect(r.status == 429)
            #expect(r.text.contains("\"code\":\"QUOTA_EXCEEDED\""), "\(r.text)")
            #expect(r.text.contains("uploadsPerDay") && r.text.contains("resets at"), "\(r.text)")
            let retry = Int(r.header("Retry-After") ?? "") ?? 0
            #expect(retry >= 1 && retry <= 86_400, "Retry-After \(retry): the seconds to the next UTC midnight")
        }
        #expect(
            try await clients[0].exchange(Self.issue(user + "-other")).status == 200,
            "another user has a quota of their own")
    }

    /// `presignd_rate_limit_syncs_total` of the instance on `port`.
    static func syncs(_ port: Int) async throws -> Int {
        guard let value = try await SocketTarget(port: port).metric("presignd_rate_limit_syncs_total") else {
            throw TestFailure("no presignd_rate_limit_syncs_total on port \(port)")
        }
        return value
    }
}
