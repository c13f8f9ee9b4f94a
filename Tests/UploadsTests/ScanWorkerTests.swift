import Clamd
import Foundation
import ObjectStore
import Records
import RecordsTestSupport
import TestSupport
import Testing
import UploadsTestSupport

@testable import Uploads

/// The scanner's steps and their repetition after a crash, with the real clamd (scripts/start-clamd.sh,
/// only the project's signature) over the in-memory store and object storage: clean promoted then
/// published, the marker noted, deleted then rejected, a record found with its object gone finished as
/// what happened before the crash, a replaced object refused, too large not scanned, no verdict retried
/// with backoff and never published.
@Suite struct ScanWorkerTests {
    /// A worker over fresh stores, clamd at `address` (the shared one by default).
    struct Rig {
        let store = InMemoryRecordStore()
        let storage = InMemoryObjectStorage()
        let worker: ScanWorker

        init(address: ClamdAddress? = nil, maxBytes: Int64 = 1 << 20) throws {
            let clamd = try address ?? #require(ClamdAddress(parsing: try TestServices.clamdAddress()))
            // A fixed clock: a retry is due 1_000 + its delay.
            let env = UploadEnvironment(nowMillis: { 1_000 }, newUUID: { UUID().uuidString.lowercased() })
            let events = WebhookEvents(
                endpoints: [.init(name: "a", url: "http://127.0.0.1:9/h", events: [])],
                recordMembers: { r, w in
                    w.key("id")
                    w.string(r.id)
                    w.key("state")
                    w.string(r.state.rawValue)
                }, env: env)
            worker = ScanWorker(
                store: store, storage: storage, clamd: ClamdClient(address: clamd, timeoutMs: 5_000, chunkBytes: 1024),
                settings: ScanSettings(maxBytes: maxBytes, retryBaseMs: 100, retryMaxMs: 350), webhooks: events,
                env: env, events: { _ in })
        }

        /// A scanning record of `bytes` under `temp/…`, promoted to `final/…` once clean.
        func scanning(_ bytes: [UInt8], etag: String = "e1", publish: Bool = true) throws -> ImageRecord {
            let key = UUID().uuidString.lowercased()
            let record = ImageRecord(
                id: UUID().uuidString.lowercased(), ownerId: "o", imageKey: key, objectKey: "temp/\(key)", type: "T",
                contentType: "image/jpeg", size: Int64(bytes.count), etag: etag, metadataJSON: "{}",
                createdAtMs: 1, state: .scanning, publishKey: publish ? "final/\(key)" : nil)
            storage.put(record.objectKey, bytes: bytes, contentType: "image/jpeg", etag: etag)
            _ = try store.insertRecords([record])
            return record
        }

        func stored(_ r: ImageRecord) throws -> ImageRecord { try #require(try store.record(id: r.id, ownerId: "o")) }

        func events(_ type: String) throws -> [WebhookDelivery] {
            try store.dueWebhookDeliveries(endpoint: "a", nowMs: .max, limit: 100).filter { $0.type == type }
        }
    }

    static let marker = ClamdDaemon.marker

    @Test func cleanIsPromotedThenPublishedAndTheMarkerDeletedThenRejected() throws {
        let rig = try Rig()
        let clean = try rig.scanning(Array("clean bytes".utf8) + [UInt8](repeating: 7, count: 5000))
        let bad = try rig.scanning([UInt8](repeating: 1, count: 3000) + Self.marker)
        #expect(rig.worker.pass(.always) == 2)
        let published = try rig.stored(clean)
        #expect(published.state == .published && published.objectKey == clean.publishKey && published.publishKey == nil)
        #expect(rig.storage.keys.contains(clean.publishKey!) && !rig.storage.keys.contains(clean.objectKey))
        let rejected = try rig.stored(bad)
        #expect(rejected.state == .rejected && rejected.rejectionReason == "MALWARE_FOUND")
        #expect(rejected.rejectionDetail == "Presignd.Test.Marker-1.UNOFFICIAL")
        #expect(!rig.storage.keys.contains(bad.objectKey) && !rig.storage.keys.contains(bad.publishKey!))
        #expect(try rig.events("upload.completed").count == 1 && rig.events("upload.rejected").count == 1)
        #expect(rig.worker.clean.load(ordering: .relaxed) == 1 && rig.worker.found.load(ordering: .relaxed) == 1)
        #expect(rig.worker.health == .up)
        // Nothing left: a second pass settles nothing and writes no event.
        #expect(rig.worker.pass(.always) == 0)
        #expect(try rig.events("upload.completed").count == 1)
    }

    @Test func aRecordFoundWithItsObjectGoneFinishesAsWhatHappenedBeforeTheCrash() throws {
        let rig = try Rig()
        // Promoted after a clean scan, killed before the publication: published from the copy.
        let promoted = try rig.scanning(Array("promoted".utf8))
        _ = try rig.storage.copy(from: promoted.objectKey, to: promoted.publishKey!, contentType: nil, expecting: nil)
        try rig.storage.delete(key: promoted.objectKey)
        // Noted as malware, killed after the delete: rejected with the noted signature.
        let noted = try rig.scanning(Self.marker)
        _ = try rig.store.settleScan(id: noted.id, .retry(dueAtMs: 0, error: "FOUND Sig.Name"), events: { _ in [] })
        try rig.storage.delete(key: noted.objectKey)
        // Gone with no trace: rejected OBJECT_MISSING, never published.
        let gone = try rig.scanning(Array("gone".utf8))
        try rig.storage.delete(key: gone.objectKey)
        #expect(rig.worker.pass(.always) == 3)
        #expect(try rig.stored(promoted).state == .published && rig.stored(promoted).objectKey == promoted.publishKey)
        #expect(
            try rig.stored(noted).rejectionReason == "MALWARE_FOUND" && rig.stored(noted).rejectionDetail == "Sig.Name")
        #expect(try rig.stored(gone).state == .rejected && rig.stored(gone).rejectionReason == "OBJECT_MISSING")
    }

    @Test func anObjectReplacedAfterItsConfirmationIsRefusedAndTooLargeIsNotScanned() throws {
        let rig = try Rig(maxBytes: 100)
        let swapped = try rig.scanning(Array("small".utf8), etag: "confirmed")
        rig.storage.put(swapped.objectKey, bytes: Self.marker, contentType: "image/jpeg", etag: "other")
        let big = try rig.scanning([UInt8](repeating: 2, count: 101))
        #expect(rig.worker.pass(.always) == 2)
        #expect(try rig.stored(swapped).rejectionReason == "OBJECT_CHANGED")
        #expect(!rig.storage.keys.contains(swapped.objectKey))
        #expect(try rig.stored(big).rejectionReason == "TOO_LARGE_TO_SCAN")
        #expect(!rig.storage.keys.contains(big.objectKey))
        // The large one was never read: no READ of its key.
        #expect(!rig.storage.calls.contains("READ \(big.objectKey)"))
        #expect(rig.worker.tooLarge.load(ordering: .relaxed) == 1)
    }

    @Test func noVerdictIsRetriedWithBackoffAndNeverPublished() throws {
        let closed = try ClosedPort()
        let rig = try Rig(address: .tcp(host: "127.0.0.1", port: closed.port))
        let record = try rig.scanning(Array("waiting".utf8))
        #expect(rig.worker.pass(.always) == 0)
        let entry = try #require(try rig.store.dueScans(nowMs: .max, limit: 5).first)
        #expect(entry.attempts == 1 && entry.dueAtMs == 1_100 && entry.lastError?.contains("unreachable") == true)
        guard case .down = rig.worker.health else { throw TestFailure("health \(rig.worker.health)") }
        #expect(try rig.stored(record).state == .scanning)
        #expect(rig.storage.keys.contains(record.objectKey))
        #expect(try rig.events("upload.completed").isEmpty)
        #expect(ScanSettings(maxBytes: 1, retryBaseMs: 100, retryMaxMs: 350).retryDelayMs(afterAttempts: 1) == 100)
        #expect(ScanSettings(maxBytes: 1, retryBaseMs: 100, retryMaxMs: 350).retryDelayMs(afterAttempts: 2) == 200)
        #expect(ScanSettings(maxBytes: 1, retryBaseMs: 100, retryMaxMs: 350).retryDelayMs(afterAttempts: 9) == 350)
    }

    @Test func aRecordDeletedDuringItsScanKeepsNoPromotedCopy() throws {
        let rig = try Rig()
        let record = try rig.scanning(Array("deleted meanwhile".utf8))
        // The owner deletes it while it is being scanned: the scan's settlement finds nothing to publish.
        let deleting = DeletingStorage(inner: rig.storage, store: rig.store, record: record)
        let worker = ScanWorker(
            store: rig.store, storage: deleting,
            clamd: ClamdClient(
                address: try #require(ClamdAddress(parsing: try TestServices.clamdAddress())), timeoutMs: 5_000),
            settings: ScanSettings(maxBytes: 1 << 20, retryBaseMs: 100, retryMaxMs: 350), webhooks: .off,
            env: UploadEnvironment(nowMillis: { 1_000 }, newUUID: { UUID().uuidString }), events: { _ in })
        _ = worker.pass(.always)
        #expect(try rig.store.record(id: record.id, ownerId: "o") == nil)
        #expect(rig.storage.keys.isEmpty, "\(rig.storage.keys)")
    }
}

/// Storage that deletes `record` (as its owner's DELETE would) once its object has been copied.
final class DeletingStorage: ObjectStorage, @unchecked Sendable {
    let inner: InMemoryObjectStorage
    let store: InMemoryRecordStore
    let record: ImageRecord

    init(inner: InMemoryObjectStorage, store: InMemoryRecordStore, record: ImageRecord) {
        self.inner = inner
        self.store = store
        self.record = record
    }

    func head(key: String) throws(ObjectStoreError) -> ObjectInfo? { try inner.head(key: key) }
    func copy(from source: String, to destination: String, contentType: String?, expecting: ObjectInfo?)
        throws(ObjectStoreError) -> ObjectInfo
    {
        let copied = try inner.copy(from: source, to: destination, contentType: contentType, expecting: expecting)
        do {
            _ = try store.deleteRecord(id: record.id, ownerId: record.ownerId)
        } catch {
            throw .connection("\(error)")
        }
        return copied
    }
    func readPrefix(key: String, maxBytes: Int) throws(ObjectStoreError) -> ObjectPrefix? {
        try inner.readPrefix(key: key, maxBytes: maxBytes)
    }
    func headWithChecksums(key: String) throws(ObjectStoreError) -> ObjectInfo? {
        try inner.headWithChecksums(key: key)
    }
    func digests(key: String, ifMatch: String?) throws(ObjectStoreError) -> ObjectDigests? {
        try inner.digests(key: key, ifMatch: ifMatch)
    }
    func read(key: String, ifMatch: String?, into sink: (UnsafeRawBufferPointer) throws(ObjectStoreError) -> Void)
        throws(ObjectStoreError) -> Int64?
    {
        try inner.read(key: key, ifMatch: ifMatch, into: sink)
    }
    func delete(key: String) throws(ObjectStoreError) { try inner.delete(key: key) }
    func probeBucket() throws(ObjectStoreError) -> S3Client.BucketProbe { try inner.probeBucket() }
}
