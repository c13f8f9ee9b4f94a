import Foundation
import ObjectStore
import Records
import TestSupport
import Testing
import Uploads

/// The multipart janitor's second duty against a real RGW: an upload storage made under a key noted
/// before CreateMultipartUpload, whose creation never reached the ledger (a crash in between), is aborted
/// once the note is older than the abort window; an upload of the same key the ledger knows, another
/// key that merely starts with it, and young notes stay.
@Suite("Multipart janitor: noted creations")
struct MultipartJanitorCreationsTests {
    @Test("uploads under a noted key that never reached the ledger are aborted", arguments: Backend.allCases)
    func orphans(_ backend: Backend) throws {
        let s3 = try TestEnvironment.s3()
        let storage = try s3.client()
        let store = try RecordStoreFactory.open(
            url: try backend.recordsURL(dir: Temporary.directory()), poolSize: 2, busyTimeoutMs: 5000)
        try store.migrate()
        let prefix = "mpc-\(UUID().uuidString.lowercased())/"
        let created = Int64(Date().timeIntervalSince1970) * 1000
        // Two uploads storage made under the noted key before a crash, one the ledger knows.
        let key = "\(prefix)video"
        try store.noteCreation(objectKey: key, ownerId: "u1", nowMs: created)
        for _ in 0..<2 { _ = try storage.createMultipartUpload(key: key) }
        let known = try storage.createMultipartUpload(key: key)
        try store.putMultipartUpload(
            MultipartUploadEntry(
                objectKey: key, uploadId: known, imageKey: "\(key)#\(known)", ownerId: "u1",
                createdAtMs: created + 10_000_000))
        // A longer key under the same prefix, never noted: not ours to abort.
        let longer = try storage.createMultipartUpload(key: key + "-2")
        // A young note: its creation may be under way.
        let youngKey = "\(prefix)young"
        try store.noteCreation(objectKey: youngKey, ownerId: "u1", nowMs: created + 3_500_000)
        let young = try storage.createMultipartUpload(key: youngKey)

        let janitor = MultipartJanitor(
            storage: storage, store: store, abortAfterSeconds: 1800, maxAborts: 100,
            env: UploadEnvironment(nowMillis: { created + 3_600_000 }, newUUID: { UUID().uuidString }),
            events: { _ in })
        #expect(janitor.sweep() == 2)
        #expect(try MultipartJanitorTests.uploads(storage, prefix: prefix) == Set([known, longer, young]))
        #expect(try store.notedCreations(notedBeforeMs: created + 3_600_000, limit: 10).map(\.objectKey) == [youngKey])
        for (k, id) in [(key, known), (key + "-2", longer), (youngKey, young)] {
            try storage.abortMultipartUpload(key: k, uploadId: id)
        }

    }
}
