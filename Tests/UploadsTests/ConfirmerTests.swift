import Config
import Records
import Testing
import Uploads
import UploadsTestSupport

/// Confirming, as the one operation every route calls: who holds the key, the owner, the types an
/// operation takes, the record kept by the group committer or into a slot (replacing, and deleting,
/// what the slot held). The native answers of the same steps are in AppTests' ImagesServiceInProcessTests.
@Suite struct ConfirmerTests {
    static let keyA = "0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6a"
    static let keyB = "1c8f7b68-3d2c-4d3f-8e7a-2a3f4e5d6c7b"

    /// An intent of an IMAGE upload of `key` by `owner`, stored (as every answered URL's is), and its
    /// object stored.
    static func issue(_ h: LifecycleHarness, _ key: String, owner: String = "7", metadata: String? = nil) throws {
        try h.store.putIntents([
            UploadIntent(
                ownerId: owner, imageKey: key, objectKey: key, permanentKey: nil, type: "IMAGE",
                contentType: "image/jpeg",
                allowedContentTypes: ["image/jpeg"], maxBytes: 1000, createdAtMs: LifecycleHarness.now,
                expiresAtMs: LifecycleHarness.now + 600_000, metadataJSON: metadata)
        ])
        h.storage.put(key, bytes: LifecycleHarness.jpeg, contentType: "image/jpeg")
    }

    @Test("made once (created), found again (not created); the intent's metadata kept when none is sent")
    func createdThenFound() throws {
        let h = try LifecycleHarness()
        try Self.issue(h, Self.keyA, metadata: #"{"from":"uppy"}"#)
        let first = try h.confirmer.confirm(Confirmation(imageKey: Self.keyA), owner: "7")
        #expect(first.created && first.record.metadataJSON == #"{"from":"uppy"}"#)
        #expect(first.record.detectedType == "image/jpeg" && first.record.width == 4)
        let again = try h.confirmer.confirm(Confirmation(imageKey: Self.keyA), owner: "7")
        #expect(!again.created && again.record == first.record)
        #expect(throws: UploadError.recordedByAnotherUser) {
            try h.confirmer.confirm(Confirmation(imageKey: Self.keyA), owner: "8")
        }
        #expect(throws: UploadError.intentNotFound) {
            try h.confirmer.confirm(Confirmation(imageKey: Self.keyB), owner: "7")
        }
    }

    @Test(
        "a generic stored type (none, binary/ or application/octet-stream) is judged by the bytes; another is refused",
        arguments: [nil, "binary/octet-stream", "application/octet-stream", "Binary/Octet-Stream; x=1"] as [String?])
    func genericStoredType(stored: String?) throws {
        let h = try LifecycleHarness()
        try Self.issue(h, Self.keyA)
        h.storage.put(Self.keyA, bytes: LifecycleHarness.jpeg, contentType: stored)
        let confirmed = try h.confirmer.confirm(Confirmation(imageKey: Self.keyA), owner: "7")
        #expect(confirmed.record.contentType == "image/jpeg")
        #expect(confirmed.record.detectedType == "image/jpeg")
    }

    @Test("a specific stored type the intent does not allow stays refused, and so do generic types' non-images")
    func genericTypeIsNoLoophole() throws {
        let h = try LifecycleHarness()
        try Self.issue(h, Self.keyA)
        h.storage.put(Self.keyA, bytes: LifecycleHarness.jpeg, contentType: "text/plain")
        #expect(throws: UploadError.contentTypeNotAllowed(stored: "text/plain", type: "IMAGE", allowed: ["image/jpeg"]))
        {
            try h.confirmer.confirm(Confirmation(imageKey: Self.keyA), owner: "7")
        }
        try Self.issue(h, Self.keyB)
        h.storage.put(Self.keyB, bytes: Array("<html><body>hi</body></html>".utf8), contentType: nil)
        do {
            _ = try h.confirmer.confirm(Confirmation(imageKey: Self.keyB), owner: "7")
            Issue.record("HTML without a type was confirmed")
        } catch {
            guard case .contentMismatch = error else {
                Issue.record("expected CONTENT_MISMATCH, got \(error)")
                return
            }
        }
        #expect(h.storage.keys.isEmpty, "both refused objects were deleted")
    }

    @Test("an operation that takes other types refuses the upload before storage is asked")
    func accepting() throws {
        let h = try LifecycleHarness()
        try Self.issue(h, Self.keyA)
        #expect(throws: UploadError.rejected([.typeNotAccepted("IMAGE", accepted: ["PROFILE"])])) {
            try h.confirmer.confirm(Confirmation(imageKey: Self.keyA), owner: "7", accepting: ["PROFILE"])
        }
        #expect(throws: UploadError.issuedToAnotherUser) {
            try h.confirmer.confirm(Confirmation(imageKey: Self.keyA), owner: "8", accepting: ["PROFILE"])
        }
        #expect(h.storage.calls == [], "nothing was read")
    }

    @Test("into a slot: the new record replaces the held one, whose intent and object go after it is durable")
    func slots() throws {
        let h = try LifecycleHarness()
        let slot = Slot(name: "profile", deletePrevious: true)
        try Self.issue(h, Self.keyA)
        let first = try h.confirmer.confirm(Confirmation(imageKey: Self.keyA), owner: "7", into: slot)
        #expect(first.created)
        // The same key again: the slot's record, unchanged.
        let same = try h.confirmer.confirm(Confirmation(imageKey: Self.keyA), owner: "7", into: slot)
        #expect(!same.created && same.record == first.record)
        try Self.issue(h, Self.keyB)
        let second = try h.confirmer.confirm(Confirmation(imageKey: Self.keyB), owner: "7", into: slot)
        #expect(second.created)
        #expect(try h.store.slotRecord(ownerId: "7", slot: "profile") == second.record)
        #expect(h.storage.keys == [Self.keyB], "the replaced record's object is deleted")
        #expect(try h.store.record(imageKey: Self.keyA) == nil)
        #expect(try h.store.intent(imageKey: Self.keyA) == nil, "its intent went first: it cannot be confirmed again")
        #expect(try h.store.pendingObjectDeletions(limit: 10).isEmpty)
        #expect(h.events.all.isEmpty)
    }

    @Test("a replaced object that cannot be deleted stays in the pending deletions, and is reported")
    func replacedObjectKept() throws {
        let h = try LifecycleHarness()
        let slot = Slot(name: "profile", deletePrevious: true)
        try Self.issue(h, Self.keyA)
        _ = try h.confirmer.confirm(Confirmation(imageKey: Self.keyA), owner: "7", into: slot)
        try Self.issue(h, Self.keyB)
        // Storage fails only for the delete: the rest of the confirmation was read first.
        h.storage.failDeletes(with: .connection("refused"))
        let second = try h.confirmer.confirm(Confirmation(imageKey: Self.keyB), owner: "7", into: slot)
        #expect(second.created)
        #expect(try h.store.pendingObjectDeletions(limit: 10) == [Self.keyA])
        guard case .replacedObjectKept(let error)? = h.events.all.first else {
            Issue.record("no event: \(h.events.all)")
            return
        }
        #expect(error.contains("refused"))
    }
}
