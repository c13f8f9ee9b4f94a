import ImageProbe
import ObjectStore
import Records
import Synchronization

/// A confirmation as a front door parsed it: the image key and the metadata to store with the record.
public struct Confirmation: Sendable {
    /// The image key, canonical (a lower-case UUID, or a key issued by type).
    public let imageKey: String
    /// The metadata object, serialised (`{}` when none was sent).
    public let metadataJSON: String

    /// A confirmation of `imageKey`.
    public init(imageKey: String, metadataJSON: String = "{}") {
        self.imageKey = imageKey
        self.metadataJSON = metadataJSON
    }
}

/// A named slot a confirmation records into, replacing what it held (a compatibility route's `slot`).
public struct Slot: Sendable {
    /// The slot's name (per owner).
    public let name: String
    /// Whether the replaced record's object is deleted.
    public let deletePrevious: Bool

    /// A slot.
    public init(name: String, deletePrevious: Bool) {
        self.name = name
        self.deletePrevious = deletePrevious
    }
}

/// What a confirmation answers: the owner's record of the key, and whether this confirmation made it.
public struct Confirmed: Sendable, Equatable {
    /// The record.
    public let record: ImageRecord
    /// True when this confirmation recorded it (or filled the slot with it), false when it existed.
    public let created: Bool
}

/// Confirming an upload: the one operation every route that records an upload calls (`POST /images`,
/// the compatibility routes, Uppy's completion), and that a store-event path can call too: the owner
/// comes in as a value, not from an HTTP caller.
///
/// The steps: who holds the key (its record, else its stored intent), the owner, the type the operation
/// takes, the object verified in storage (size, content type, the content check) and
/// promoted to its permanent key, then the record kept durably (the group committer, or a slot).
public final class Confirmer: Sendable {
    let catalog: UploadCatalog
    let ownership: ImageKeyOwnership
    let intents: IntentKeeper
    let storage: (any ObjectStorage)?
    let committer: GroupCommitter
    let store: any RecordStore
    let env: UploadEnvironment
    let events: LifecycleLog
    /// Objects refused by the content check (`presignd_content_refused_total`).
    public let contentRefusals = Atomic<Int>(0)

    /// `storage` nil switches the storage check off (`s3.verifyUploads = false`, for measuring the store),
    /// and with it the content check and promotion.
    public init(
        catalog: UploadCatalog, ownership: ImageKeyOwnership, intents: IntentKeeper, storage: (any ObjectStorage)?,
        committer: GroupCommitter, store: any RecordStore, env: UploadEnvironment, events: @escaping LifecycleLog
    ) {
        self.catalog = catalog
        self.ownership = ownership
        self.intents = intents
        self.storage = storage
        self.committer = committer
        self.store = store
        self.env = env
        self.events = events
    }

    /// On a worker: `owner`'s record of the key, made now (after storage shows the object within the
    /// intent's limits and, for a type with a permanent key, after it is promoted there) or found. A
    /// record of another owner is `.recordedByAnotherUser`, an intent of another owner
    /// `.issuedToAnotherUser`, an upload of a type not `accepting` (when given) `.rejected`. With a
    /// `slot`, the record fills it (replacing, and deleting, what it held). A confirmation without
    /// metadata (`{}`) keeps the intent's, if it has some (Uppy's `/s3/params` metadata).
    public func confirm(_ c: Confirmation, owner: String, accepting: [String] = [], into slot: Slot? = nil)
        throws(UploadError) -> Confirmed
    {
        let intent: UploadIntent
        switch try ownership.holder(of: c.imageKey) {
        case .nobody: throw .intentNotFound
        case .record(let r):
            guard r.ownerId == owner else { throw .recordedByAnotherUser }
            guard let slot else { return Confirmed(record: r, created: false) }
            try UploadCatalog.checkAccepted(r.type, accepting)
            return try fill(r, slot: slot)
        case .intent(let i): intent = i
        }
        guard intent.ownerId == owner else { throw .issuedToAnotherUser }
        try UploadCatalog.checkAccepted(intent.type, accepting)
        // The intent was read from the store: nothing is copied or recorded before it is stored, by
        // construction (a URL is answered only once its intent is; docs/records.md).
        var object: VerifiedObject?
        if let storage { object = try verifiedObject(intent, in: storage) }
        let record = ImageRecord(
            id: env.newUUID(), ownerId: owner, imageKey: c.imageKey,
            objectKey: object?.key ?? intent.objectKey, type: intent.type,
            contentType: object?.contentType ?? intent.contentType ?? intent.allowedContentTypes.first
                ?? "application/octet-stream",
            size: object?.info.size ?? 0, etag: object?.info.etag ?? "",
            metadataJSON: c.metadataJSON == "{}" ? intent.metadataJSON ?? c.metadataJSON : c.metadataJSON,
            createdAtMs: env.nowMillis(), detectedType: object?.image?.mimeType,
            width: (object?.image?.size?.width).map(Int64.init), height: (object?.image?.size?.height).map(Int64.init))
        if let slot { return try fill(record, slot: slot) }
        switch try UploadError.storing({ () throws(RecordsError) in try committer.insert(record) }) {
        case .inserted(let r): return Confirmed(record: r, created: true)
        case .existing(let r):
            guard r.ownerId == owner else { throw .recordedByAnotherUser }
            return Confirmed(record: r, created: false)
        }
    }

    /// Makes `record` the slot's record (one durable transaction), then deletes the object of the record
    /// it replaced: never before the new record is durable. A failed delete leaves the key in the
    /// store's pending deletions (reported), never a record pointing at a deleted object.
    func fill(_ record: ImageRecord, slot: Slot) throws(UploadError) -> Confirmed {
        let outcome = try UploadError.storing { () throws(RecordsError) in
            try store.fillSlot(record, slot: slot.name, deletePrevious: slot.deletePrevious, nowMs: env.nowMillis())
        }
        switch outcome {
        case .unchanged(let r): return Confirmed(record: r, created: false)
        case .filled(let r, let previous, let objectToDelete):
            if let key = objectToDelete { deleteReplaced(key, imageKey: previous?.imageKey) }
            return Confirmed(record: r, created: true)
        case .recordedByAnotherUser: throw .recordedByAnotherUser
        case .inAnotherSlot: throw .keyAlreadyRecorded
        }
    }

    /// Deletes a replaced record's object, then its pending-deletion row. Its intent goes first, so the
    /// replaced image key cannot be confirmed again (`.intentNotFound`) and record an object that is
    /// about to be deleted.
    func deleteReplaced(_ key: String, imageKey: String?) {
        guard let storage else { return }
        do {
            if let imageKey { try store.deleteIntents(imageKeys: [imageKey]) }
            try storage.delete(key: key)
            try store.finishObjectDeletions([key])
        } catch {
            events(.replacedObjectKept(error: "\(error)"))
        }
    }
}
