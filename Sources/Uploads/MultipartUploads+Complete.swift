import ObjectStore
import Records

/// A completed multipart upload: its record, and storage's `Location` of the object (nil when the
/// upload was completed before: recorded earlier, or completed by storage before an answer was lost).
public struct CompletedMultipart: Sendable {
    /// The record, as a confirmation answers it.
    public let record: ImageRecord
    /// Storage's `Location` of the completed object.
    public let location: String?
    /// True when the record is an earlier one of the same bytes (`types.<T>.dedup`): the completed object
    /// was deleted.
    public var deduplicated = false
}

extension MultipartUploads {
    /// On a worker: the upload completed and recorded. The pair key's claim is taken first (a concurrent
    /// completion waits for this one and answers its record; the janitor leaves the upload alone), then
    /// the parts are checked against ListParts (every page: ETags, 5 MiB–5 GiB but the last, the type's
    /// total, the declared size exactly when one was declared), noted in the ledger (durable), CompleteMultipartUpload is sent with the store's ETags in
    /// part order (on the client with the longer timeout), and the record is made as every confirmation
    /// makes it (`Confirmer.confirm` under the same claim: the owner, the object within the intent's size
    /// and type, its content check and promotion). A repeated completion of a recorded upload answers the
    /// same record again.
    ///
    /// A retry after storage completed the upload but no record was written (the answer was lost, or the
    /// process died) hears `NoSuchUpload` from ListParts: the ledger's parts of the first attempt, and a
    /// HEAD whose ETag is their composite (or, for a type with a permanent key, the promoted copy), prove
    /// it was completed, and the record is made.
    public func complete(_ ref: UploadRef, parts: [PartRules.Part], owner: String) throws(UploadError)
        -> CompletedMultipart
    {
        try complete(ref, owner: owner) { (_) throws(UploadError) in parts }
    }

    /// `complete(_:parts:owner:)` with the parts chosen by `choose` from storage's ListParts under the
    /// claim (the native API's: a completion racing another sees its record, never a half-completed
    /// upload's listing).
    public func complete(
        _ ref: UploadRef, owner: String, choose: ([UploadedPart]) throws(UploadError) -> [PartRules.Part]
    ) throws(UploadError) -> CompletedMultipart {
        let intent: UploadIntent
        switch try ownership.holder(of: ref.pairKey) {
        case .record(let r) where r.ownerId == owner: return CompletedMultipart(record: r, location: nil)
        case .intent(let i) where i.ownerId == owner && i.expiresAtMs > env.nowMillis(): intent = i
        default: throw .noSuchUpload
        }
        owners.forget(ref)
        let token = env.newUUID()
        switch try confirmer.claim(intent, as: .confirm, token: token, waitMs: confirmer.heldWaitMs) {
        case .won: break
        case .recorded(let r):
            guard r.ownerId == owner else { throw .noSuchUpload }
            return CompletedMultipart(record: r, location: nil)
        case .deduplicated(let r):
            return CompletedMultipart(record: r, location: nil, deduplicated: true)
        }
        do {
            let location = try completeInStorage(ref, intent: intent, choose: choose)
            let confirmed = try confirmer.confirm(
                Confirmation(imageKey: ref.pairKey, metadataJSON: intent.metadataJSON ?? "{}"), owner: owner,
                claimToken: token)
            return CompletedMultipart(
                record: confirmed.record, location: location, deduplicated: confirmed.deduplicated)
        } catch {
            confirmer.release(ref.pairKey, token: token)
            throw error
        }
    }

    /// The parts checked, noted and completed in storage: storage's `Location`, or nil when storage had
    /// completed the upload before (`completedEarlier`).
    func completeInStorage(
        _ ref: UploadRef, intent: UploadIntent, choose: ([UploadedPart]) throws(UploadError) -> [PartRules.Part]
    ) throws(UploadError) -> String? {
        let listed: [UploadedPart]
        do throws(ObjectStoreError) {
            listed = try storage.listParts(key: ref.key, uploadId: ref.uploadId)
        } catch {
            guard case .multipart(.noSuchUpload) = error else { throw .storage(error) }
            guard try completedEarlier(ref, intent: intent) else { throw .noSuchUpload }
            return nil
        }
        let parts = try choose(listed)
        var byNumber: [Int: (etag: String, size: Int64)] = [:]
        byNumber.reserveCapacity(listed.count)
        for p in listed { byNumber[p.partNumber] = (p.etag, p.size) }
        let checked = try PartRules.checkCompletion(
            given: parts, listed: byNumber, maxBytes: intent.maxBytes, type: intent.type,
            declaredSize: intent.declaredSize)
        let sent = checked.parts.map { (partNumber: $0.number, etag: $0.etag) }
        // Noted before storage may complete it: a retry that hears NoSuchUpload then finds what was sent.
        _ = try UploadError.storing { () throws(RecordsError) in
            try ledger.noteCompletion(
                objectKey: ref.key, uploadId: ref.uploadId,
                parts: sent.map { MultipartUploadEntry.Part(number: $0.partNumber, etag: $0.etag) },
                nowMs: env.nowMillis())
        }
        let completed = try UploadError.calling { () throws(ObjectStoreError) in
            try completeStorage.completeMultipartUpload(key: ref.key, uploadId: ref.uploadId, parts: sent)
        }
        return completed.location
    }

    /// Whether storage completed `ref` before (storage no longer knows the upload): the ledger holds the
    /// parts a completion sent, and the object at the key has their composite ETag; or, for a type with
    /// a permanent key, the object was promoted there already (the confirmation then finds it).
    func completedEarlier(_ ref: UploadRef, intent: UploadIntent) throws(UploadError) -> Bool {
        let entry = try UploadError.storing { () throws(RecordsError) in
            try ledger.multipartUpload(objectKey: ref.key, uploadId: ref.uploadId)
        }
        guard let sent = entry?.completionParts, !sent.isEmpty else { return false }
        let found = try UploadError.calling { () throws(ObjectStoreError) in try storage.head(key: ref.key) }
        if let found { return S3Client.isCompletion(found, ofParts: sent.map(\.etag)) }
        guard let permanent = intent.permanentKey else { return false }
        return try UploadError.calling { () throws(ObjectStoreError) in try storage.head(key: permanent) } != nil
    }
}
