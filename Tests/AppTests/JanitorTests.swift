import AppTestSupport
import Crypto
import Foundation
import HTTPServer
import Logging
import ObjectStoreTestSupport
import Records
import RecordsTestSupport
import SigV4
import System
import TestSupport
import Testing
import Uploads

@testable import App
@testable import ObjectStore

#if canImport(Glibc)
    import Glibc
#endif

/// The janitor: expired, never-confirmed intents are removed in bounded batches, with their objects when
/// configured; confirmed ones and fresh ones stay. (kill -9 during a sweep: CrashDurabilityTests.)
@Suite("Janitor")
struct JanitorTests {
    @Test("sweep removes expired unconfirmed intents (and their objects when asked), keeps the rest")
    func sweep() throws {
        let s3 = try TestEnvironment.s3()
        let dir = Temporary.directory()
        let store = try RecordStoreFactory.open(url: "sqlite:\(dir)/j.sqlite3", poolSize: 1, busyTimeoutMs: 5000)
        try store.migrate()
        let now: Int64 = 2_000_000_000_000
        let signer = try Presigner(
            credentials: Credentials(
                accessKeyId: s3.accessKey, secretAccessKey: Secret(s3.secretKey), sessionToken: nil),
            region: s3.region, endpoint: Endpoint(parsing: s3.endpoint), addressing: .path)
        let storage = S3Client(
            options: ObjectStoreOptions(endpoint: try Endpoint(parsing: s3.endpoint), bucket: s3.bucket),
            signer: signer, now: { Int64(Date().timeIntervalSince1970) })
        let prefix = "janitor-\(UUID().uuidString.lowercased())"
        func intent(_ name: String, expiresAt: Int64) -> UploadIntent {
            UploadIntent(
                ownerId: "7", imageKey: "\(prefix)/\(name)", objectKey: "\(prefix)/\(name)", permanentKey: nil,
                type: "IMAGE", contentType: "image/jpeg", allowedContentTypes: ["image/jpeg"], maxBytes: 10,
                createdAtMs: expiresAt - 600_000, expiresAtMs: expiresAt)
        }
        let old = (0..<7).map { intent("old\($0)", expiresAt: now - Janitor.graceMs - 1000) }
        let recent = intent("recent", expiresAt: now - 1000)  // expired, but within the grace period
        let confirmed = intent("confirmed", expiresAt: now - Janitor.graceMs - 1000)
        try store.putIntents(old + [recent, confirmed])
        for i in old + [recent, confirmed] { try storage.put(key: i.objectKey, bytes: [1], contentType: "image/jpeg") }
        _ = try store.insertRecords([
            ImageRecord(
                id: UUID().uuidString.lowercased(), ownerId: "7", imageKey: confirmed.imageKey,
                objectKey: confirmed.objectKey, type: "IMAGE", contentType: "image/jpeg", size: 1, etag: "e",
                metadataJSON: "{}", createdAtMs: now)
        ])
        let env = UploadEnvironment(nowMillis: { now }, newUUID: { UUID().uuidString.lowercased() })
        let janitor = Janitor(
            store: store, storage: storage, deleteObjects: true, batchSize: 3, intervalMs: 60_000, env: env,
            events: { _ in })
        #expect(janitor.sweep() == 7, "seven expired unconfirmed intents, removed in batches of 3")
        for i in old {
            #expect(try store.intent(imageKey: i.imageKey) == nil)
            #expect(try storage.head(key: i.objectKey) == nil, "its object is deleted too")
        }
        #expect(try store.intent(imageKey: recent.imageKey) != nil, "within the grace period")
        #expect(try storage.head(key: recent.objectKey) != nil)
        #expect(try storage.head(key: confirmed.objectKey) != nil, "a confirmed object is never touched")
        #expect(janitor.sweep() == 0)
    }

    /// Expired intents (past the grace period at `now`) of a type with a permanent key, each with an
    /// object at its upload key and, as a confirmation that promoted it and then failed to store its
    /// record leaves it, a copy at its permanent key.
    static func promotedButUnrecorded(
        _ count: Int, now: Int64, store: any RecordStore, storage: S3Client
    ) throws -> [UploadIntent] {
        let prefix = "janitor-\(UUID().uuidString.lowercased())"
        let intents = (0..<count).map { n in
            UploadIntent(
                ownerId: "7", imageKey: "\(prefix)-\(n)", objectKey: "delete/\(prefix)/\(n).jpg",
                permanentKey: "kept/\(prefix)/\(n).jpg", type: "PROFILE", contentType: "image/jpeg",
                allowedContentTypes: ["image/jpeg"], maxBytes: 10, createdAtMs: now - Janitor.graceMs - 700_000,
                expiresAtMs: now - Janitor.graceMs - 100_000 + Int64(n))
        }
        try store.putIntents(intents)
        for i in intents {
            try storage.put(key: i.objectKey, bytes: [1], contentType: "image/jpeg")
            try storage.put(key: i.permanentKey!, bytes: [1], contentType: "image/jpeg")
        }
        return intents
    }

    @Test("deleteUnconfirmedObjects=false: uploads stay, but a promoted copy without a record is deleted")
    func keepsUploadsDeletesOrphanedCopies() throws {
        let s3 = try TestEnvironment.s3()
        let dir = Temporary.directory()
        let store = try RecordStoreFactory.open(url: "sqlite:\(dir)/j.sqlite3", poolSize: 1, busyTimeoutMs: 5000)
        try store.migrate()
        let storage = try s3.client(endpoint: s3.endpoint, maxRetries: 0)
        let now: Int64 = 2_000_000_000_000
        let intents = try Self.promotedButUnrecorded(4, now: now, store: store, storage: storage)
        let janitor = Janitor(
            store: store, storage: storage, deleteObjects: false, batchSize: 3, intervalMs: 60_000,
            env: UploadEnvironment(nowMillis: { now }, newUUID: { UUID().uuidString.lowercased() }), events: { _ in })
        #expect(janitor.sweep() == 4)
        for i in intents {
            #expect(try store.intent(imageKey: i.imageKey) == nil)
            #expect(try storage.head(key: i.objectKey) != nil, "the upload is left to the bucket's lifecycle")
            #expect(try storage.head(key: i.permanentKey!) == nil, "nothing else would ever find this copy")
        }
        #expect(janitor.objectsDeleted.load(ordering: .relaxed) == 4)
    }

    @Test("a storage delete failing mid-batch: the intents handled go, the rest are retried by the next sweep")
    func deleteFailsMidBatch() throws {
        let s3 = try TestEnvironment.s3()
        let proxy = try FaultProxy(inFrontOf: s3)
        defer { proxy.close() }
        let dir = Temporary.directory()
        let store = try RecordStoreFactory.open(url: "sqlite:\(dir)/j.sqlite3", poolSize: 1, busyTimeoutMs: 5000)
        try store.migrate()
        let direct = try s3.client(endpoint: s3.endpoint, maxRetries: 0)
        let now: Int64 = 2_000_000_000_000
        let intents = try Self.promotedButUnrecorded(5, now: now, store: store, storage: direct)
        let log = LogFile()
        let janitor = Janitor(
            store: store, storage: try s3.client(endpoint: "http://127.0.0.1:\(proxy.port)", maxRetries: 0),
            deleteObjects: true, batchSize: 10, intervalMs: 60_000,
            env: UploadEnvironment(nowMillis: { now }, newUUID: { UUID().uuidString.lowercased() }),
            events: { $0.write(to: log.sink) })
        // Each intent takes two DELETEs (permanent copy, upload): the 5th request (intent 3's copy) fails.
        proxy.setRules([.init(.numbers([5]), .status(500, code: "InternalError"))])
        #expect(janitor.sweep() == 2, "intents 1 and 2 were finished before the failure")
        #expect(proxy.faultCount == 1)
        #expect(janitor.failedSweeps.load(ordering: .relaxed) == 1)
        let stopped = try log.entries("janitor pass stopped")
        #expect(stopped.count == 1)
        #expect(stopped.first?["error"]?.stringValue?.contains("500") == true, "\(stopped)")
        for (n, i) in intents.enumerated() {
            let left = try store.intent(imageKey: i.imageKey) != nil
            #expect(left == (n >= 2), "intent \(n) \(left ? "kept" : "removed")")
        }
        // Storage answers again: the next sweep finishes, and every object is gone.
        #expect(janitor.sweep() == 3)
        for i in intents {
            #expect(try store.intent(imageKey: i.imageKey) == nil)
            #expect(try direct.head(key: i.objectKey) == nil)
            #expect(try direct.head(key: i.permanentKey!) == nil)
        }
        #expect(janitor.sweep() == 0)
    }

    @Test("the janitor's thread: started, sweeping on its interval, stopped and joined, each logged")
    func threadStartAndStop() async throws {
        let dir = Temporary.directory()
        let store = try RecordStoreFactory.open(url: "sqlite:\(dir)/j.sqlite3", poolSize: 1, busyTimeoutMs: 5000)
        try store.migrate()
        let log = LogFile()
        let janitor = Janitor(
            store: store, storage: nil, deleteObjects: false, batchSize: 10, intervalMs: 1,
            env: UploadEnvironment(nowMillis: { 2_000_000_000_000 }, newUUID: { UUID().uuidString.lowercased() }),
            events: { $0.write(to: log.sink) })
        janitor.start()
        #expect(try log.entries("janitor started").first?["intervalMs"]?.intValue == 1)
        #expect(try log.entries("janitor started").first?["leaseTtlMs"]?.intValue == 30_000)
        // Its sweeps are counted as they finish: wait for three.
        _ = await eventually(within: 30, pollMs: 1) { janitor.sweeps.load(ordering: .relaxed) >= 3 }
        #expect(janitor.sweeps.load(ordering: .relaxed) >= 3)
        #expect(try log.entries("janitor lease acquired").count == 1, "one lease, held throughout")
        #expect(janitor.leaseHeld.load(ordering: .relaxed) == 1)
        janitor.stop()  // returns once the thread has been joined
        #expect(janitor.leaseHeld.load(ordering: .relaxed) == 0)
        let released = try store.lease(name: Janitor.leaseName)
        #expect(
            released.map { $0.expiresAtMs <= 2_000_000_000_000 } == true, "given up: \(String(describing: released))")
        let after = janitor.sweeps.load(ordering: .relaxed)
        let stopped = try #require(try log.entries("janitor stopped").first)
        #expect(stopped["sweeps"]?.intValue == after, "the thread is gone: its last sweep is counted in the line")
        janitor.stop()
        #expect(try log.entries("janitor stopped").count == 1, "a second stop is a no-op")
    }
}
