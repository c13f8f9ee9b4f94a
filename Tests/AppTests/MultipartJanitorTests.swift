import Config
import Crypto
import Foundation
import Logging
import ObjectStore
import Records
import RecordsTestSupport
import SigV4
import Synchronization
import System
import TestSupport
import Testing
import Uploads

@testable import App

/// The multipart janitor against a real RGW: only the ledger's uploads (this server's) older than the
/// age are aborted, bounded per run; young ones, and uploads another client made in the same bucket
/// under the same prefix, stay.
@Suite("Multipart janitor")
struct MultipartJanitorTests {

    static func uploads(_ storage: S3Client, prefix: String) throws -> Set<String> {
        var out = Set<String>()
        var marker: (String?, String?) = (nil, nil)
        repeat {
            let page = try storage.listMultipartUploads(
                prefix: prefix, keyMarker: marker.0, uploadIdMarker: marker.1, maxUploads: 1000)
            for u in page.uploads { out.insert(u.uploadId) }
            marker = (page.nextKeyMarker, page.nextUploadIdMarker)
        } while marker.0 != nil
        return out
    }

    @Test(
        "the ledger's old uploads are aborted, at most maxAborts per run; another client's uploads survive",
        arguments: Backend.allCases)
    func sweep(_ backend: Backend) throws {
        let s3 = try TestEnvironment.s3()
        let storage = try s3.client()
        let store = try RecordStoreFactory.open(
            url: try backend.recordsURL(dir: Temporary.directory()), poolSize: 2, busyTimeoutMs: 5000)
        try store.migrate()
        let run = "mpj-\(UUID().uuidString.lowercased())"
        let prefix = "\(run)/tmp/"
        let created = Int64(Date().timeIntervalSince1970) * 1000
        var ours: [MultipartUploadEntry] = []
        for i in 0..<5 {
            let key = "\(prefix)v\(i)"
            let id = try storage.createMultipartUpload(key: key)
            let entry = MultipartUploadEntry(
                objectKey: key, uploadId: id, imageKey: "\(key)#\(id)", ownerId: "u1", createdAtMs: created)
            try store.putMultipartUpload(entry)
            ours.append(entry)
        }
        // Another client's uploads, in the same bucket under the same prefix: never in the ledger.
        var others: [String: String] = [:]
        for i in 0..<3 { others["\(prefix)other\(i)"] = try storage.createMultipartUpload(key: "\(prefix)other\(i)") }
        let theirs = Set(others.values)
        // A ledger upload already gone from storage (completed or aborted since): NoSuchUpload is done.
        let goneKey = "\(prefix)gone"
        let goneId = try storage.createMultipartUpload(key: goneKey)
        try storage.abortMultipartUpload(key: goneKey, uploadId: goneId)
        try store.putMultipartUpload(
            MultipartUploadEntry(
                objectKey: goneKey, uploadId: goneId, imageKey: "\(goneKey)#\(goneId)", ownerId: "u1",
                createdAtMs: created + 1))

        // The clock: one hour after the uploads began, with an age of 30 minutes; pages of 2.
        let later = created + 3_600_000
        let counter = Atomic<Int>(0)
        let env = UploadEnvironment(
            nowMillis: { later }, newUUID: { "t\(counter.add(1, ordering: .relaxed).newValue)" })
        let janitor = MultipartJanitor(
            storage: storage, store: store, abortAfterSeconds: 1800, maxAborts: 3, pageSize: 2, env: env,
            events: { _ in })
        #expect(janitor.sweep() == 3)
        #expect(try Self.uploads(storage, prefix: prefix) == theirs.union(ours[3...].map(\.uploadId)))
        #expect(janitor.sweep() == 3)
        #expect(try Self.uploads(storage, prefix: prefix) == theirs)
        #expect(janitor.sweep() == 0)
        #expect(janitor.aborts.load(ordering: .relaxed) == 6)
        #expect(try store.multipartUploads(createdBeforeMs: later, limit: 100).isEmpty)
        // Each won claim is settled expired: a late completion of it answers 410, never records.
        #expect(try store.claim(imageKey: ours[0].imageKey)?.state == .expired)

        // Young uploads of the ledger stay: the same janitor with the clock at their start.
        let youngKey = "\(prefix)young"
        let young = try storage.createMultipartUpload(key: youngKey)
        try store.putMultipartUpload(
            MultipartUploadEntry(
                objectKey: youngKey, uploadId: young, imageKey: "\(youngKey)#\(young)", ownerId: "u1",
                createdAtMs: created))
        let now = MultipartJanitor(
            storage: storage, store: store, abortAfterSeconds: 1800, maxAborts: 10,
            env: UploadEnvironment(nowMillis: { created + 1000 }, newUUID: { UUID().uuidString }), events: { _ in })
        #expect(now.sweep() == 0)
        #expect(try Self.uploads(storage, prefix: prefix) == theirs.union([young]))
        try storage.abortMultipartUpload(key: youngKey, uploadId: young)
        for (key, id) in others { try storage.abortMultipartUpload(key: key, uploadId: id) }
    }

    @Test func prefixesOfTypes() {
        #expect(UploadPrefixes.minimal(["delete/a/", "delete/", "x/", "delete/b/"]) == ["delete/", "x/"])
        #expect(UploadPrefixes.minimal(["a/", ""]) == [""])
        #expect(UploadPrefixes.of(PresigndConfig.defaults.types) == [""])
    }
}
