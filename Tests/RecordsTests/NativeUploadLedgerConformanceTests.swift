import Foundation
import TestSupport
import Testing

@testable import Records

/// The contract of the native uploads and the noted creations of `MultipartLedger` (schema version 14),
/// on every store.
@Suite(.blocking) struct NativeUploadLedgerConformanceTests {
    static func upload(checkedAtMs: Int64, owner: String = "owner-" + Sample.uuid()) -> NativeUploadEntry {
        NativeUploadEntry(
            uploadId: "2~" + Sample.uuid(), objectKey: "video/\(Sample.uuid())", ownerId: owner, size: 11 * 1_048_576,
            partSize: 5 * 1_048_576, createdAtMs: 1_000, checkedAtMs: checkedAtMs)
    }

    @Test(arguments: StoreKind.kinds)
    func uploadsRoundTripAndSettleOnce(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.full
        let upload = Self.upload(checkedAtMs: 1_000)
        #expect(upload.partCount == 3)
        #expect([1, 2, 3].map(upload.partBytes) == [5 * 1_048_576, 5 * 1_048_576, 1_048_576])
        try store.putNativeUpload(upload)
        #expect(try store.nativeUpload(uploadId: upload.uploadId) == upload)
        #expect(try store.nativeUpload(uploadId: "absent") == nil)
        // The same id again is refused: an id names one upload.
        #expect(throws: RecordsError.self) { try store.putNativeUpload(upload) }
        #expect(
            try store.settleNativeUpload(uploadId: upload.uploadId, state: .completed, reason: nil, recordId: "r1"))
        // Settled once: a later abort changes nothing.
        #expect(
            try store.settleNativeUpload(uploadId: upload.uploadId, state: .aborted, reason: "late", recordId: nil)
                == false)
        let other = try test.reopen() as! any ExactlyOnceStore
        let read = try #require(try other.nativeUpload(uploadId: upload.uploadId))
        #expect(read.state == .completed && read.recordId == "r1" && read.reason == nil)
    }

    @Test(arguments: StoreKind.kinds)
    func openUploadsComeLeastRecentlyCheckedFirst(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.full
        let a = Self.upload(checkedAtMs: 3_000)
        let b = Self.upload(checkedAtMs: 1_000)
        let c = Self.upload(checkedAtMs: 2_000)
        let settled = Self.upload(checkedAtMs: 500)
        for u in [a, b, c, settled] { try store.putNativeUpload(u) }
        _ = try store.settleNativeUpload(uploadId: settled.uploadId, state: .aborted, reason: "why", recordId: nil)
        #expect(
            try store.openNativeUploads(checkedBeforeMs: 10_000, limit: 10).map(\.uploadId)
                == [b, c, a].map(\.uploadId))
        #expect(try store.openNativeUploads(checkedBeforeMs: 2_500, limit: 1).map(\.uploadId) == [b.uploadId])
        try store.markNativeUploadChecked(uploadId: b.uploadId, nowMs: 9_000)
        #expect(
            try store.openNativeUploads(checkedBeforeMs: 10_000, limit: 10).map(\.uploadId)
                == [c, a, b].map(\.uploadId))
        #expect(try store.nativeUpload(uploadId: settled.uploadId)?.reason == "why")
    }

    @Test(arguments: StoreKind.kinds)
    func notedCreationsAreListedOldestFirstAndForgotten(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.full
        try store.noteCreation(objectKey: "k2", ownerId: "o", nowMs: 2_000)
        try store.noteCreation(objectKey: "k1", ownerId: "o", nowMs: 1_000)
        try store.noteCreation(objectKey: "k3", ownerId: "o", nowMs: 9_000)
        #expect(try store.notedCreations(notedBeforeMs: 5_000, limit: 10).map(\.objectKey) == ["k1", "k2"])
        // Noted again (a retried creation of the same key): its time is the new one.
        try store.noteCreation(objectKey: "k1", ownerId: "p", nowMs: 8_000)
        #expect(try store.notedCreations(notedBeforeMs: 5_000, limit: 10).map(\.objectKey) == ["k2"])
        try store.forgetCreation(objectKey: "k2")
        try store.forgetCreation(objectKey: "absent")
        #expect(
            try store.notedCreations(notedBeforeMs: 10_000, limit: 10) == [
                NotedCreation(objectKey: "k1", ownerId: "p", notedAtMs: 8_000),
                NotedCreation(objectKey: "k3", ownerId: "o", notedAtMs: 9_000),
            ])
    }
}
