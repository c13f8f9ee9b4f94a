import Crypto
import Foundation
import HTTPServer
import ObjectStoreTestSupport
import Records
import SigV4
import System
import TestSupport
import Testing

@testable import App
@testable import ObjectStore

/// The janitor: expired, never-confirmed intents are removed in bounded batches, with their objects when
/// configured; confirmed ones and fresh ones stay.
@Suite("Janitor")
struct JanitorTests {
    @Test("sweep removes expired unconfirmed intents (and their objects when asked), keeps the rest")
    func sweep() throws {
        let s3 = try TestEnvironment.s3()
        let dir = TestEnvironment.tempDir()
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
        let env = AppEnvironment(nowMillis: { now }, newUUID: { UUID().uuidString.lowercased() })
        let janitor = Janitor(
            store: store, storage: storage, deleteObjects: true, batchSize: 3, intervalMs: 60_000, env: env,
            log: LogSink(fd: 2))
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
}
