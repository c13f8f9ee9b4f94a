import Config
import ImageProbe
import ObjectStore
import Records
import Synchronization
import System

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
    /// True when the upload's bytes were those of this existing record of its owner and type
    /// (`types.<T>.dedup`): the new object was deleted and nothing else recorded.
    public var deduplicated = false
}

/// Confirming an upload: the one operation every route that records an upload calls (`POST /images`,
/// the compatibility routes, Uppy's completion), and that a store-event path can call too: the owner
/// comes in as a value, not from an HTTP caller.
///
/// The steps: who holds the key (its record, else its stored intent), the owner, the type the operation takes,
/// the intent's claim (`Confirmer+Claims`: only one confirmation, store event,
/// reconciler or janitor settles an intent; the others answer from its outcome), the object verified in
/// storage (size, content type, the content check) and promoted to its permanent key, then the record kept
/// durably with the claim settled (the group committer), and for a slot the slot filled with it.
public final class Confirmer: Sendable {
    let catalog: UploadCatalog
    let ownership: ImageKeyOwnership
    let intents: IntentKeeper
    let storage: (any ObjectStorage)?
    let committer: GroupCommitter
    let store: any LifecycleStore
    let env: UploadEnvironment
    let events: LifecycleLog
    /// The outbound webhook events of what confirmations change (`upload.completed`, `upload.replaced`,
    /// `upload.deleted`, `upload.rejected`), written with the change.
    let webhooks: WebhookEvents
    /// How long a claim holds before another claimant may take it over; renewed every quarter of it while
    /// its step runs, so a process killed mid-step frees the key within one lease. Shorter than
    /// `heldWaitMs`, so a confirmation waiting on a dead holder takes the key over within its wait.
    let claimLeaseMs: Int64
    /// How long a confirmation waits for another claimant of its key to finish before it answers
    /// `.confirmationInProgress`.
    let heldWaitMs: Int
    /// What the waits between reads of a held claim wait on (nothing signals it: each wait runs its time).
    let pauses = Monitor()
    /// Objects refused by the content check (`presignd_content_refused_total`).
    public let contentRefusals = Atomic<Int>(0)
    /// Objects refused because their bytes were not the declared ones (`presignd_checksum_refused_total`).
    public let checksumRefusals = Atomic<Int>(0)
    /// Objects read whole to prove or compute a digest (`presignd_checksum_reads_total`).
    public let checksumReads = Atomic<Int>(0)
    /// Bytes read for those proofs (`presignd_checksum_read_bytes_total`).
    public let checksumReadBytes = Atomic<Int>(0)
    /// What storage checks and keeps of a declared digest: whether its HEAD is asked for its SHA-256.
    let storeChecksums: StoreChecksums
    /// Confirmations that found their key's claim held by another claimant and waited for its outcome
    /// (`presignd_claims_waited_total`).
    public let claimWaits = Atomic<Int>(0)
    /// Claimants that found a held claim still held at the end of their wait (`presignd_claims_busy_total`).
    public let claimsBusy = Atomic<Int>(0)
    /// Claims this process took, or may have taken, and could not give back (the database failed under
    /// the step, or under the claim's own answer), by image key: the token. No step of this process holds
    /// them any more, so the next claimant here gives them back instead of waiting out their lease.
    let abandoned = Mutex<[String: String]>([:])
    /// The claims held now by this process's confirmations, renewed while held (`Confirmer+Renewal`).
    let held = Mutex<HeldClaims>(HeldClaims())

    /// `storage` nil switches the storage check off (`s3.verifyUploads = false`, for measuring the store),
    /// and with it the content check and promotion. `committer` is one made over `store`'s claims.
    public init(
        catalog: UploadCatalog, ownership: ImageKeyOwnership, intents: IntentKeeper, storage: (any ObjectStorage)?,
        committer: GroupCommitter, store: any LifecycleStore, env: UploadEnvironment, events: @escaping LifecycleLog,
        webhooks: WebhookEvents = .off, claimLeaseMs: Int64 = 6_000, heldWaitMs: Int = 10_000,
        storeChecksums: StoreChecksums = .preset(.custom)
    ) {
        self.catalog = catalog
        self.ownership = ownership
        self.intents = intents
        self.storage = storage
        self.committer = committer
        self.store = store
        self.env = env
        self.events = events
        self.webhooks = webhooks
        self.claimLeaseMs = claimLeaseMs
        self.heldWaitMs = heldWaitMs
        self.storeChecksums = storeChecksums
    }

    /// On a worker: `owner`'s record of the key, made now (after storage shows the object within the
    /// intent's limits and, for a type with a permanent key, after it is promoted there) or found. A
    /// record of another owner is `.recordedByAnotherUser`, an intent of another owner
    /// `.issuedToAnotherUser`, an upload of a type not `accepting` (when given) `.rejected`. With a
    /// `slot`, the record fills it (replacing, and deleting, what it held). A confirmation without
    /// metadata (`{}`) keeps the intent's, if it has some (Uppy's `/s3/params` metadata).
    ///
    /// Another claimant of the key (a concurrent confirmation, the store's event, the reconciler) makes
    /// this one wait for its outcome, bounded, and answer from it: the record (`created` false), or
    /// `.intentExpired` when the janitor won; `.confirmationInProgress` when it is still held at the end.
    /// `claimToken` is a claim the caller already holds on the key (a multipart completion's).
    public func confirm(
        _ c: Confirmation, owner: String, accepting: [String] = [], into slot: Slot? = nil, claimToken: String? = nil
    ) throws(UploadError) -> Confirmed {
        let intent: UploadIntent
        switch try ownership.holder(of: c.imageKey) {
        case .nobody:
            // The janitor removes an intent only after settling its claim as expired.
            let claim = try UploadError.storing { () throws(RecordsError) in try store.claim(imageKey: c.imageKey) }
            throw claim?.state == .expired ? .intentExpired : .intentNotFound
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
        let confirmed = try record(
            intent, metadataJSON: c.metadataJSON == "{}" ? intent.metadataJSON ?? c.metadataJSON : c.metadataJSON,
            as: .confirm, token: claimToken, waitMs: heldWaitMs)
        guard confirmed.record.ownerId == owner else { throw .recordedByAnotherUser }
        if let slot { return try fill(confirmed.record, slot: slot) }
        return confirmed
    }

    /// On a worker: records the upload of `intent` for its owner, as `POST /images` would (the same claim,
    /// checks and promotion), for the store's own event or the reconciler (`claimant`). It does not wait
    /// for another claimant: a held claim is `.confirmationInProgress` (try again later). The record
    /// keeps the intent's metadata.
    public func confirmStored(_ intent: UploadIntent, by claimant: ClaimRequest.Claimant) throws(UploadError)
        -> Confirmed
    {
        if let r = try UploadError.storing({ () throws(RecordsError) in try store.record(imageKey: intent.imageKey) }) {
            return Confirmed(record: r, created: false)
        }
        return try record(intent, metadataJSON: intent.metadataJSON ?? "{}", as: claimant, token: nil, waitMs: 0)
    }

    /// The record of `intent` as its object is now (`object` nil: storage is not checked). For a type that
    /// scans (with storage checked), the record is `scanning`, its object still under the upload key and
    /// the permanent key kept for its publication (docs/scanning.md).
    func newRecord(_ intent: UploadIntent, _ object: VerifiedObject?, metadataJSON: String) -> ImageRecord {
        var record = ImageRecord(
            id: env.newUUID(), ownerId: intent.ownerId, imageKey: intent.imageKey,
            objectKey: object?.key ?? intent.objectKey, type: intent.type,
            contentType: object?.contentType ?? intent.contentType ?? intent.allowedContentTypes.first
                ?? "application/octet-stream",
            size: object?.info.size ?? 0, etag: object?.info.etag ?? "", metadataJSON: metadataJSON,
            createdAtMs: env.nowMillis(), detectedType: object?.image?.mimeType,
            width: (object?.image?.size?.width).map(Int64.init), height: (object?.image?.size?.height).map(Int64.init),
            sha256: object?.sha256)
        if let object, catalog.scans(intent) {
            record.state = .scanning
            record.publishKey = intent.permanentKey == object.key ? nil : intent.permanentKey
        }
        return record
    }

    /// Makes `record` the slot's record (one durable transaction), then deletes the object of the record
    /// it replaced: never before the new record is durable. A failed delete leaves the key in the
    /// store's pending deletions (reported), never a record pointing at a deleted object.
    func fill(_ record: ImageRecord, slot: Slot) throws(UploadError) -> Confirmed {
        let outcome = try UploadError.storing { () throws(RecordsError) in
            try store.fillSlot(
                record, slot: slot.name, deletePrevious: slot.deletePrevious, nowMs: env.nowMillis(),
                events: webhooks.filled)
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
