import AppTestSupport
import Foundation
import JSON
import Records
import RecordsTestSupport
import TestSupport
import Testing

/// The janitor under its lease (issue 23): three binaries on one PostgreSQL behind HAProxy remove each
/// expired intent once in total, and after a kill -9 of the holder the survivors take the lease over and
/// remove the next ones once; one instance (in process) on SQLite gives a daily quota reservation back
/// when its intent expires unconfirmed.
@Suite("The janitor's lease (binaries)", .serialized, .heavy(aloneSeconds: 30))
struct JanitorLeaseBinaryTests {
    /// The one upload type of these tests: URLs that expire after a second, under `prefix`.
    static func types(prefix: String, expiresSeconds: Int = 1) -> String {
        let removed = ["PROFILE", "FEED", "CHATROOM_PROFILE", "CHAT", "CHAT_PROFILE", "IMAGE", "VIDEO"]
            .map { #""\#($0)": null"# }.joined(separator: ", ")
        return
            #"{\#(removed), "JL": {"extensions": ["jpg"], "contentTypes": ["image/jpeg"], "keyTemplate": "\#(prefix){userId}/{uuid}.{ext}", "maxBytes": 1048576, "expiresSeconds": \#(expiresSeconds)}}"#
    }

    /// The issue route for the test type as `user`.
    static func issue(_ user: String) -> String {
        "GET /presigned-url?type=JL&ext=jpg HTTP/1.1\r\nHost: a\r\nX-User-Id: \(user)\r\n\r\n"
    }

    /// Issues `count` URLs through `target`; their image keys.
    static func issueMany(_ count: Int, _ target: some HTTPTarget, user: String) async throws -> [String] {
        var keys: [String] = []
        for _ in 0..<count {
            let r = try await target.exchange(Self.issue(user))
            try #require(r.status == 200, "issue: \(r.status) \(r.text)")
            // GET answers the key, which is the intent's image key.
            let body = try JSONValue(parsing: r.body)
            keys.append(try #require(body["imageKey"]?.stringValue ?? body["key"]?.stringValue, "\(r.text)"))
        }
        return keys
    }

    /// The metrics of the instance on `port` named in `names` (0 when absent).
    static func metrics(_ port: Int, _ names: [String]) async throws -> [String: Int] {
        var found: [String: Int] = [:]
        for name in names { found[name] = try await SocketTarget(port: port).metric(name) ?? 0 }
        return found
    }

    static let removedName = "presignd_janitor_intents_removed_total"
    static let deletedName = "presignd_janitor_objects_deleted_total"
    static let heldName = "presignd_janitor_lease_held"
    static let acquiredName = "presignd_janitor_lease_acquired_total"
    static let names = [removedName, deletedName, heldName, acquiredName]

    @Test("three instances: each expired intent removed once in total; after kill -9 of the holder, once again")
    func eachRemovalHappensOnceAcrossInstances() async throws {
        let prefix = "jl-\(UUID().uuidString.prefix(8).lowercased())/"
        let harness = try await InstancesHarness.start(extra: [
            "PRESIGN_TYPES": Self.types(prefix: prefix), "PRESIGN_PRESIGN_DEFAULT_POST_TYPE": "JL",
            "PRESIGN_RECORDS_JANITOR_GRACE_MS": "0", "PRESIGN_RECORDS_JANITOR_INTERVAL_MS": "1000",
            "PRESIGN_RECORDS_JANITOR_BATCH_SIZE": "16", "PRESIGN_RECORDS_DELETE_UNCONFIRMED_OBJECTS": "true",
            "PRESIGN_RECORDS_LEASE_TTL_MS": "3000",
        ])
        defer { harness.stop() }
        let ports = try (0..<3).map { try harness.instancePort($0) }
        let store = try RecordStoreFactory.open(url: harness.recordsURL, poolSize: 1, busyTimeoutMs: 5000)
        func sums(_ among: [Int]) async throws -> [String: Int] {
            var total: [String: Int] = [:]
            for port in among {
                for (name, value) in try await Self.metrics(port, Self.names) { total[name, default: 0] += value }
            }
            return total
        }
        func gone(_ keys: [String]) throws -> Bool { try keys.allSatisfy { try store.intent(imageKey: $0) == nil } }

        // N URLs through HAProxy, expiring a second later: every intent removed within a minute.
        let n = 120
        let first = try await Self.issueMany(n, SocketTarget(port: harness.port), user: "jl1")
        #expect(try await eventually(within: 60, pollMs: 100) { try gone(first) }, "every expired intent removed")
        // A few more janitor intervals: nobody removes anything more.
        try await Task.sleep(for: .milliseconds(2500))
        let after = try await sums(ports)
        #expect(after[Self.removedName] == n, "removed \(after)")
        #expect(after[Self.deletedName] == n, "one DELETE per upload key: \(after)")
        var held: [Int] = []
        for port in ports { held.append(try await Self.metrics(port, Self.names)[Self.heldName] ?? 0) }
        #expect(held.reduce(0, +) == 1, "one holder: \(held)")
        let holder = try #require(held.firstIndex(of: 1))
        let lease = try #require(try store.lease(name: "janitor"))

        // kill -9 the holder; M more URLs, removed once by the survivors after the lease runs out.
        try await harness.kill9(holder)
        let survivors = (0..<3).filter { $0 != holder }.map { ports[$0] }
        let before = try await sums(survivors)
        let m = 40
        let second = try await Self.issueMany(m, SocketTarget(port: harness.port), user: "jl2")
        #expect(try await eventually(within: 60, pollMs: 100) { try gone(second) }, "removed by the survivors")
        try await Task.sleep(for: .milliseconds(2500))
        let end = try await sums(survivors)
        #expect((end[Self.removedName] ?? 0) - (before[Self.removedName] ?? 0) == m, "before \(before), after \(end)")
        #expect((end[Self.deletedName] ?? 0) - (before[Self.deletedName] ?? 0) == m, "before \(before), after \(end)")
        #expect(end[Self.heldName] == 1, "one survivor holds the lease: \(end)")
        let taken = try #require(try store.lease(name: "janitor"))
        #expect(taken.token > lease.token && taken.holder != lease.holder, "taken over: \(lease) -> \(taken)")
        print(
            "janitor lease across instances: \(n) removed once by instance \(holder) (token \(lease.token)); after "
                + "its kill -9, \(m) removed once by the survivors (token \(taken.token))")
    }

    @Test("a daily quota reservation is given back when its intent expires unconfirmed (SQLite, one instance)")
    func reservationReleasedOnExpiry() async throws {
        // The three issues must fall inside the URLs' life (else the janitor gives a reservation back
        // before the third and it is rightly issued): 10 s of life, and the test's requests on a queue
        // of their own, so a run whose other tests hold the cooperative pool cannot stretch them.
        let executor = OwnQueueExecutor(label: "presignd-test-quota")
        try await withTaskExecutorPreference(executor) { try await reservationReleasedOnExpiryHere() }
    }

    private func reservationReleasedOnExpiryHere() async throws {
        let prefix = "jq-\(UUID().uuidString.prefix(8).lowercased())/"
        var (env, _) = TestEnvironment.serverEnvironment(
            s3: nil,
            extra: [
                "PRESIGN_TYPES": Self.types(prefix: prefix, expiresSeconds: 10),
                "PRESIGN_PRESIGN_DEFAULT_POST_TYPE": "JL", "PRESIGN_LIMITS_UPLOADS_PER_USER_PER_DAY": "2",
                "PRESIGN_LIMITS_ISSUE_PER_USER_PER_MINUTE": "100000",
                "PRESIGN_LIMITS_ISSUE_PER_ADDRESS_PER_MINUTE": "1000000", "PRESIGN_RECORDS_JANITOR_GRACE_MS": "0",
                "PRESIGN_RECORDS_JANITOR_INTERVAL_MS": "1000",
            ])
        env["PRESIGN_LIMITS_ENABLED"] = "true"
        let server = try await InProcessApp(environment: env)
        defer { server.stop() }
        let user = "quota-\(UUID().uuidString.prefix(8).lowercased())"
        func issue() async throws -> WireResponse { try await server.exchange(Self.issue(user)) }
        // The three issues below count against one UTC day's quota.
        UTCDay.awayFromMidnight()
        #expect(try await issue().status == 200)
        #expect(try await issue().status == 200)
        let refused = try await issue()
        #expect(refused.status == 429 && refused.text.contains("\"code\":\"QUOTA_EXCEEDED\""), "\(refused.text)")
        // Both URLs expire after 10 s; the janitor (every second, no grace) removes their intents and
        // gives their reservations back.
        let released = try await eventually(within: 60, pollMs: 100) {
            (try await server.metric("presignd_janitor_quotas_released_total") ?? 0) >= 2
        }
        #expect(released, "\(server.log.text.suffix(2000))")
        #expect(try await server.metric("presignd_janitor_quotas_released_total") == 2)
        let again = try await issue()
        #expect(again.status == 200, "the same user is issued again: \(again.status) \(again.text)")
    }
}
