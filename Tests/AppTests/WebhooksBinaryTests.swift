import Foundation
import JSON
import Records
import RecordsTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// kill -9 of the real binary between records' commits and their webhooks' deliveries, under load, ten
/// times: every recorded upload's `upload.completed` reaches the receiver after the restarts, and an
/// event received twice is received under the same `webhook-id` (the outbox is written in the record's
/// transaction; a delivery whose settlement the kill lost is sent again as itself).
@Suite("Webhooks across kill -9", .serialized, .onDispatchThreads)
struct WebhooksBinaryTests {
    @Test(
        "kill -9 under 8 writers, 10 cycles: every record's event delivered after restart, repeats only by id",
        arguments: Backend.allCases)
    func killNineBetweenCommitAndDelivery(backend: Backend) async throws {
        // A receiver slower than the writers (SQLite's commit thousands of records in the ten cycles): events
        // wait in the outbox, and some are in flight at each kill; 8 at once of 10 ms each drain the rest
        // in well under the wait below.
        let receiver = try WebhookReceiver(holdMs: 10)
        defer { receiver.down() }
        let dir = Temporary.directory()
        let url = try await backend.recordsURL(dir: dir)
        var extra = receiver.settings
        extra["PRESIGN_RECORDS_URL"] = url
        extra["PRESIGN_S3_VERIFY_UPLOADS"] = "false"
        // A lease that a killed holder leaves runs out in 3 s (the request time-out stays under half of it).
        extra["PRESIGN_RECORDS_LEASE_TTL_MS"] = "3000"
        extra["PRESIGN_WEBHOOKS_TIMEOUT_MS"] = "1000"
        extra["PRESIGN_WEBHOOKS_CONCURRENCY"] = "8"
        let (env, _) = TestEnvironment.serverEnvironment(s3: nil, extra: extra)
        let acked = AckBox()
        var rng = SystemRandomNumberGenerator()
        var pendingAtKills: [Int] = []
        for cycle in 0..<10 {
            let server = try await ServerProcess(environment: env)
            let stop = Date().addingTimeInterval(130)
            let port = server.port
            let group = DispatchGroup()
            for w in 0..<8 {
                DispatchQueue.global().async(group: group) {
                    CrashDurabilityTests.writer(port: port, user: "w\(w)", acked: acked, stop: stop)
                }
            }
            let before = acked.count
            _ = await eventually(within: 120) { acked.count > before + 20 }
            try await Task.sleep(for: .microseconds(UInt64.random(in: 50_000...600_000, using: &rng)))
            server.signal(SIGKILL)
            _ = await server.exit()
            _ = try await onThread { group.wait() }
            #expect(acked.count > before, "cycle \(cycle): no writes were acknowledged")
            // What the kill left between commit and delivery: events in the outbox not yet settled.
            let pending = try await onThread {
                try RecordStoreFactory.open(url: url, poolSize: 1, busyTimeoutMs: 5000).webhookOutboxStats().pending
            }
            pendingAtKills.append(pending)
        }
        // Some kill fell between records' commits and their deliveries (8 writers keep a round in flight).
        #expect(pendingAtKills.contains { $0 > 0 }, "\(pendingAtKills)")
        // The restarted server's deliverer takes the lease over and delivers what is left.
        let server = try await ServerProcess(environment: env)
        defer { server.stop() }
        let store = try RecordStoreFactory.open(url: url, poolSize: 1, busyTimeoutMs: 5000)
        var recorded: [String: String] = [:]
        for w in 0..<8 {
            var cursor: RecordCursor?
            repeat {
                let page = try store.listRecords(ownerId: "w\(w)", type: nil, limit: 1000, after: cursor)
                for r in page.records { recorded[r.id] = r.imageKey }
                cursor = page.next
            } while cursor != nil
        }
        #expect(recorded.count >= acked.count)
        #expect(acked.all.allSatisfy { recorded[$0.id] == $0.imageKey })
        func delivered() -> Set<String> {
            Set(receiver.events(ofType: "upload.completed").compactMap { $0.data?["id"]?.stringValue })
        }
        #expect(
            await eventually(within: 240, pollMs: 500) { delivered().isSuperset(of: Set(recorded.keys)) },
            "\(Set(recorded.keys).subtracting(delivered()).count) of \(recorded.count) records' events missing")
        #expect(delivered() == Set(recorded.keys), "events of records the store does not hold")
        // One webhook-id per record, however often it came.
        var idsByRecord: [String: Set<String>] = [:]
        for d in receiver.deliveries where d.type == "upload.completed" {
            idsByRecord[d.data?["id"]?.stringValue ?? "", default: []].insert(d.id)
        }
        #expect(idsByRecord.values.allSatisfy { $0.count == 1 })
        let repeats = receiver.deliveries.count - receiver.events.count
        #expect(acked.unexpectedAnswers.isEmpty, "\(acked.unexpectedAnswers)")
        try WebhooksFlowTests.expectVerified(receiver)
        print(
            "webhooks across kill -9 (\(backend)): \(recorded.count) records, each one event; "
                + "\(receiver.deliveries.count) deliveries, \(repeats) of them repeats under the same id; "
                + "undelivered at the kills: \(pendingAtKills)")
    }
}
