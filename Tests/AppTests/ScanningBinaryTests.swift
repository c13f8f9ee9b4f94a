import Foundation
import JSON
import Records
import RecordsTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// kill -9 of the real binary while records are `scanning` (docs/scanning.md): once with clamd stopped
/// (the scanner retrying), once with clamd up right after the last confirmation (scans in flight); after
/// the restart every record finishes as its bytes say (clean ones published at their permanent key with
/// one `upload.completed` each, those with the test signature's marker rejected and deleted), and none is
/// published unscanned.
@Suite("Scanning across kill -9", .serialized)
struct ScanningBinaryTests {
    @Test(
        "kill -9 during scans, twice: every record finishes after restart, none published unscanned",
        .heavy(aloneSeconds: 25), arguments: Backend.allCases)
    func killNineDuringScans(backend: Backend) async throws {
        let clamd = try ClamdDaemon()
        defer { clamd.destroy() }
        let receiver = try WebhookReceiver()
        defer { receiver.down() }
        let s3 = try TestEnvironment.s3()
        let url = try await backend.recordsURL(dir: Temporary.directory())
        var extra = receiver.settings.merging(ScanningFlowTests.settings(clamd: clamd.address)) { $1 }
        extra["PRESIGN_RECORDS_URL"] = url
        // A lease that a killed holder leaves runs out in 3 s.
        extra["PRESIGN_RECORDS_LEASE_TTL_MS"] = "3000"
        extra["PRESIGN_WEBHOOKS_TIMEOUT_MS"] = "1000"
        let (env, _) = TestEnvironment.serverEnvironment(s3: s3, extra: extra)
        let user = "scan-\(UUID().uuidString.prefix(8).lowercased())"
        var infected: [String: Bool] = [:]
        var uploadKeys: [String: String] = [:]
        var scanningAtKills: [Int] = []
        for cycle in 0..<2 {
            if cycle == 0 { try clamd.stop() } else { try clamd.start() }
            let server = try await ServerProcess(environment: env)
            for i in 0..<6 {
                let bad = i % 3 == 0
                // 2 MiB each, so that a scan takes a while (storage to clamd) and some are in flight at the kill.
                let bytes = ScanningFlowTests.jpeg(infected: bad) + [UInt8](repeating: UInt8(i), count: 2 << 20)
                let (status, record) = try await ScanningFlowTests.uploadAndConfirm(
                    server, s3, user: user, bytes: bytes)
                try #require(status == 202, "\(record)")
                let id = try #require(record["id"]?.stringValue)
                infected[id] = bad
                uploadKeys[id] = try #require(record["key"]?.stringValue)
            }
            if cycle == 0 {
                // The scanner has tried and failed: it is retrying when the kill comes.
                #expect(
                    try await eventually(within: 20, pollMs: 50) {
                        try await server.exchange("GET", "/metrics").text.contains("presignd_scanner_up 0")
                    })
            } else {
                // The scanner took the lease over (the killed holder's ran out) and settled a first record:
                // it is going through the queue when the kill comes (counted as at least one, since two
                // scans may settle between polls).
                #expect(
                    try await eventually(within: 30, pollMs: 10) {
                        let clean = try await ExactlyOnceFlowTests.metric(
                            server, #"presignd_scans_total{outcome="clean"}"#)
                        let found = try await ExactlyOnceFlowTests.metric(
                            server, #"presignd_scans_total{outcome="found"}"#)
                        return clean + found >= 1
                    })
            }
            server.signal(SIGKILL)
            _ = await server.exit()
            let scanning = try await onThread {
                try RecordStoreFactory.open(url: url, poolSize: 1, busyTimeoutMs: 5000).scanQueueStats().scanning
            }
            scanningAtKills.append(scanning)
        }
        #expect(scanningAtKills[0] == 6, "\(scanningAtKills)")
        #expect(scanningAtKills[1] < 12, "the second kill came before any scan: \(scanningAtKills)")
        // The restarted server's scanner takes the lease over and finishes every record.
        let server = try await ServerProcess(environment: env)
        defer { server.stop() }
        for (id, bad) in infected {
            let r = try await ScanningFlowTests.settled(server, id: id, user: user)
            let uploadKey = try #require(uploadKeys[id])
            #expect(try await s3.fetch("HEAD", key: uploadKey).status == 404, "\(r)")
            if bad {
                #expect(r["state"]?.stringValue == "rejected", "\(r)")
                #expect(r["rejection"]?["reason"]?.stringValue == "MALWARE_FOUND", "\(r)")
            } else {
                #expect(r["state"]?.stringValue == "published", "\(r)")
                let key = try #require(r["key"]?.stringValue)
                let head = try await s3.fetch("HEAD", key: key).status
                #expect(key != uploadKey && head == 200)
            }
        }
        // One upload.completed per clean record (the same webhook-id if sent twice), none of an infected one.
        let clean = Set(infected.filter { !$0.value }.keys)
        #expect(
            await eventually(within: 30, pollMs: 100) {
                Set(receiver.events(ofType: "upload.completed").compactMap { $0.data?["id"]?.stringValue }) == clean
            })
        var idsByRecord: [String: Set<String>] = [:]
        for d in receiver.deliveries where d.type == "upload.completed" {
            idsByRecord[d.data?["id"]?.stringValue ?? "", default: []].insert(d.id)
        }
        #expect(idsByRecord.count == clean.count && idsByRecord.values.allSatisfy { $0.count == 1 })
        #expect(
            await eventually(within: 30, pollMs: 100) {
                receiver.events(ofType: "upload.rejected").count == infected.count - clean.count
            })
        print("scanning across kill -9 (\(backend)): still scanning at the kills: \(scanningAtKills)")
    }
}
