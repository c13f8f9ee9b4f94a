import Foundation
import TestSupport
import Testing

@testable import Records

/// The contract of `MultipartLedger` (schema version 7), on every store.
@Suite(.blocking) struct MultipartLedgerConformanceTests {
    /// An upload of `key` created at `createdAtMs`.
    static func upload(_ key: String = "uploads/\(Sample.uuid()).jpg", createdAtMs: Int64) -> MultipartUploadEntry {
        MultipartUploadEntry(
            objectKey: key, uploadId: "2~" + Sample.uuid(), imageKey: Sample.uuid(), ownerId: "owner-" + Sample.uuid(),
            createdAtMs: createdAtMs)
    }

    @Test(arguments: StoreKind.kinds)
    func uploadsRoundTripWithTheirCompletionParts(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.full
        let upload = Self.upload(createdAtMs: 1_000)
        try store.putMultipartUpload(upload)
        #expect(try store.multipartUpload(objectKey: upload.objectKey, uploadId: upload.uploadId) == upload)
        #expect(try store.multipartUpload(objectKey: upload.objectKey, uploadId: "other") == nil)
        #expect(try store.multipartUpload(objectKey: "other", uploadId: upload.uploadId) == nil)
        let parts = (1...3).map {
            MultipartUploadEntry.Part(number: $0, etag: "\"\(String(repeating: "\($0)", count: 32))\"")
        }
        #expect(
            try store.noteCompletion(objectKey: upload.objectKey, uploadId: upload.uploadId, parts: parts, nowMs: 5_000)
        )
        #expect(
            try store.noteCompletion(objectKey: upload.objectKey, uploadId: "absent", parts: parts, nowMs: 5_000)
                == false)
        var completing = upload
        completing.completionParts = parts
        completing.completingAtMs = 5_000
        #expect(try store.multipartUpload(objectKey: upload.objectKey, uploadId: upload.uploadId) == completing)
        // Reopened (another instance) it is there too.
        let other = try test.reopen() as! any ExactlyOnceStore
        #expect(try other.multipartUpload(objectKey: upload.objectKey, uploadId: upload.uploadId) == completing)
        // An ETag that would break the stored list is refused.
        #expect(throws: RecordsError.self) {
            try store.noteCompletion(
                objectKey: upload.objectKey, uploadId: upload.uploadId, parts: [.init(number: 1, etag: "a b")],
                nowMs: 1)
        }
        #expect(throws: RecordsError.self) {
            try store.noteCompletion(
                objectKey: upload.objectKey, uploadId: upload.uploadId, parts: [.init(number: 1, etag: "a\nb")],
                nowMs: 1)
        }
        try store.removeMultipartUploads([(upload.objectKey, upload.uploadId), ("absent", "absent")])
        #expect(try store.multipartUpload(objectKey: upload.objectKey, uploadId: upload.uploadId) == nil)
    }

    @Test(arguments: StoreKind.kinds)
    func theJanitorListsOldUploadsOldestFirst(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.full
        let uploads = [3_000, 1_000, 2_000, 9_000].map { Self.upload(createdAtMs: Int64($0)) }
        for upload in uploads { try store.putMultipartUpload(upload) }
        // Two uploads of one key are two entries.
        var sibling = Self.upload(uploads[0].objectKey, createdAtMs: 4_000)
        sibling.imageKey = uploads[0].imageKey
        try store.putMultipartUpload(sibling)
        #expect(
            try store.multipartUploads(createdBeforeMs: 5_000, limit: 10) == [
                uploads[1], uploads[2], uploads[0], sibling,
            ])
        #expect(try store.multipartUploads(createdBeforeMs: 5_000, limit: 2) == [uploads[1], uploads[2]])
        #expect(try store.multipartUploads(createdBeforeMs: 1_000, limit: 10) == [])
        #expect(throws: RecordsError.self) { try store.multipartUploads(createdBeforeMs: 1, limit: 0) }
    }
}
