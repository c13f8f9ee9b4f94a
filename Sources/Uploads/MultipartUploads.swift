import ObjectStore
import Records
import SigV4

/// Multipart uploads (Uppy's large files): create one with its intent, sign its part URLs, list and
/// abort it for its owner, and complete it into a record as any confirmation does.
///
/// An upload is the caller's when its intent (recorded at creation under the pair key
/// `key#uploadId`) names the caller and has not expired; any other is `.noSuchUpload`, the same answer
/// storage's `NoSuchUpload` gets. Owners checked here are remembered (`owners`), so that part URLs
/// (one request per part) can be signed on the event loop. Every upload created here is in the records
/// store's ledger (`MultipartLedger`): the multipart janitor aborts only those, and a retried completion
/// finds the parts its first attempt sent.
public final class MultipartUploads: Sendable {
    let issuer: Issuer
    let storage: any ObjectStorage & MultipartStorage
    /// The same store with the longer timeout of CompleteMultipartUpload.
    let completeStorage: any MultipartStorage
    /// The ledger of the uploads this server created.
    let ledger: any MultipartLedger
    let intents: IntentKeeper
    let ownership: ImageKeyOwnership
    let confirmer: Confirmer
    let env: UploadEnvironment
    /// The lifetime of a part URL, in seconds.
    public let partExpires: Int
    /// How long an upload may take before its intent expires (and the janitor aborts it).
    let uploadLifetimeMs: Int64
    /// Uploads whose owner is known here: their part URLs are signed on the event loop.
    public let owners = UploadOwnerCache()

    /// Multipart uploads through `storage` (`completeStorage` for completions).
    public init(
        issuer: Issuer, storage: any ObjectStorage & MultipartStorage, completeStorage: any MultipartStorage,
        ledger: any MultipartLedger, intents: IntentKeeper, ownership: ImageKeyOwnership, confirmer: Confirmer,
        env: UploadEnvironment, partExpires: Int, uploadLifetimeMs: Int64
    ) {
        self.issuer = issuer
        self.storage = storage
        self.completeStorage = completeStorage
        self.ledger = ledger
        self.intents = intents
        self.ownership = ownership
        self.confirmer = confirmer
        self.env = env
        self.partExpires = partExpires
        self.uploadLifetimeMs = uploadLifetimeMs
    }

    /// The bucket uploads go to.
    public var bucket: String { issuer.bucket }

    /// On a worker: CreateMultipartUpload of `object`, then the upload in the ledger (durable) and its
    /// intent under the pair key, handed off as every issued URL's is and waited for, so the upload is
    /// answered only once its intent is stored (and any instance can sign its parts); when either cannot be
    /// kept, the upload is aborted (a ledger row left behind is the janitor's, whose abort then finds
    /// nothing). The worker waits through the commit (about one, or the writer's bound in an outage): the
    /// route already holds it for the storage call, and the abort after a refusal needs it too.
    public func create(_ object: PlannedObject, owner: String) throws(UploadError) -> UploadRef {
        // The key noted first (durable): an upload storage makes in the instant before a crash is found
        // under it by the multipart janitor (ListMultipartUploads with the key as prefix) and aborted.
        try UploadError.storing { () throws(RecordsError) in
            try ledger.noteCreation(objectKey: object.key, ownerId: owner, nowMs: env.nowMillis())
        }
        // On a failure storage may have made the upload all the same (a lost answer): the noted key stays
        // for the janitor.
        let uploadId = try UploadError.calling { () throws(ObjectStoreError) in
            try storage.createMultipartUpload(key: object.key, contentType: object.contentType, metadata: [])
        }
        let now = env.nowMillis()
        let pairKey = UploadRef.pairKey(key: object.key, uploadId: uploadId)
        let intent = issuer.intent(
            of: object, owner: owner, imageKey: pairKey, nowMs: now, lifetimeMs: uploadLifetimeMs)
        do {
            try UploadError.storing { () throws(RecordsError) in
                try ledger.putMultipartUpload(
                    MultipartUploadEntry(
                        objectKey: object.key, uploadId: uploadId, imageKey: pairKey, ownerId: owner, createdAtMs: now))
            }
            try issuer.handOffAndWait(intent)
        } catch {
            // Aborted below; should the abort fail, the noted key leads the janitor to it.
            try? storage.abortMultipartUpload(key: object.key, uploadId: uploadId)
            throw error
        }
        // In the ledger now (the janitor's), so the noted key is no longer needed; left behind by a
        // failure here, the janitor finds the upload in the ledger and leaves it to the ledger's abort.
        _ = try? ledger.forgetCreation(objectKey: object.key)
        owners.remember(key: object.key, uploadId: uploadId, ownerId: owner, expiresAtMs: intent.expiresAtMs)
        return UploadRef(uploadId: uploadId, key: object.key)
    }

    /// On the event loop: whether `owner` is known to own `ref` (else ask `owned` on a worker).
    public func knowsOwner(_ ref: UploadRef, owner: String) -> Bool {
        owners.owns(ref, ownerId: owner, nowMs: env.nowMillis())
    }

    /// On a worker: the intent of `owner`'s upload `ref`, else `.noSuchUpload` (never issued, another
    /// owner's, or expired). Only the intent is read (the writer's queue, then the store), not the
    /// records: a completed upload is gone from storage, so its part URLs, listing and abort are
    /// answered `NoSuchUpload` by storage anyway, and part signing stays one lookup. The intent was stored
    /// before the creation was answered, so another instance finds it here at once.
    public func owned(_ ref: UploadRef, owner: String) throws(UploadError) -> UploadIntent {
        guard let intent = try intents.intent(imageKey: ref.pairKey), intent.ownerId == owner,
            intent.expiresAtMs > env.nowMillis()
        else { throw .noSuchUpload }
        owners.remember(ref, ownerId: intent.ownerId, expiresAtMs: intent.expiresAtMs)
        return intent
    }

    /// The presigned UploadPart URL of part `number` of `ref` (signed as client-chosen keys are), for an
    /// upload whose owner was checked; with the part's `md5` (base64 of 16 bytes), the URL signs its
    /// `Content-MD5` where storage checks it (`PartRules.partDigestHeader`), so other bytes fail at the PUT.
    public func partURL(_ ref: UploadRef, _ number: Int, md5: String? = nil, nowMs: Int64? = nil) throws(UploadError)
        -> String
    {
        let now = nowMs ?? env.nowMillis()
        if let md5, let reason = DeclaredDigest.md5.problem(with: md5) {
            throw .rejected([.digestMalformed(.md5, reason: reason)])
        }
        do {
            guard let header = PartRules.partDigestHeader(md5: md5, storeChecksums: issuer.storeChecksums) else {
                return try issuer.signers.configured.presignUploadPart(
                    bucket: issuer.bucket, key: ref.key, uploadId: ref.uploadId, partNumber: number,
                    expires: partExpires, now: now / 1000
                ).url
            }
            // The same request with the part's digest signed in (part number and upload ID as its query).
            return try issuer.signers.configured.presign(
                PresignRequest(
                    method: "PUT", bucket: issuer.bucket, key: ref.key, expires: partExpires, signedHeaders: [header],
                    query: [("partNumber", String(number)), ("uploadId", ref.uploadId)]),
                now: now / 1000
            ).url
        } catch {
            throw Issuer.signingError(error)
        }
    }

    /// On a worker: the URLs of `numbers` (in that order) of `owner`'s upload `ref`, each signing its
    /// part's MD5 when `md5s` gives one (`md5s` empty, or one per number).
    public func partURLs(_ ref: UploadRef, _ numbers: [Int], md5s: [String] = [], owner: String) throws(UploadError)
        -> [String]
    {
        _ = try owned(ref, owner: owner)
        let now = env.nowMillis()
        var urls: [String] = []
        urls.reserveCapacity(numbers.count)
        for (i, n) in numbers.enumerated() {
            urls.append(try partURL(ref, n, md5: md5s.isEmpty ? nil : md5s[i], nowMs: now))
        }
        return urls
    }

    /// On a worker: every part of `owner`'s upload `ref` uploaded so far (ListParts, every page).
    public func listParts(_ ref: UploadRef, owner: String) throws(UploadError) -> [UploadedPart] {
        _ = try owned(ref, owner: owner)
        return try UploadError.calling { () throws(ObjectStoreError) in
            try storage.listParts(key: ref.key, uploadId: ref.uploadId)
        }
    }

    /// On a worker: AbortMultipartUpload of `owner`'s upload `ref`.
    public func abort(_ ref: UploadRef, owner: String) throws(UploadError) {
        _ = try owned(ref, owner: owner)
        owners.forget(ref)
        try UploadError.calling { () throws(ObjectStoreError) in
            try storage.abortMultipartUpload(key: ref.key, uploadId: ref.uploadId)
        }
    }
}
