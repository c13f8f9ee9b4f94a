import ObjectStore
import Records

/// A completed multipart upload: its record, and storage's `Location` of the object (nil when the
/// upload was completed and recorded before).
public struct CompletedMultipart: Sendable {
    /// The record, as a confirmation answers it.
    public let record: ImageRecord
    /// Storage's `Location` of the completed object.
    public let location: String?
}

extension MultipartUploads {
    /// On a worker: checks `parts` against ListParts (every page: ETags, 5 MiB–5 GiB but the last, the
    /// type's total), CompleteMultipartUpload with the store's ETags in part order (on the client with the
    /// longer timeout), then the record as every confirmation makes it (`Confirmer.confirm`: the owner,
    /// the object within the intent's size and type, its content check and promotion). A repeated
    /// completion of a recorded upload answers the same record again.
    public func complete(_ ref: UploadRef, parts: [PartRules.Part], owner: String) throws(UploadError)
        -> CompletedMultipart
    {
        let intent: UploadIntent
        switch try ownership.holder(of: ref.pairKey) {
        case .record(let r) where r.ownerId == owner: return CompletedMultipart(record: r, location: nil)
        case .intent(let i) where i.ownerId == owner && i.expiresAtMs > env.nowMillis(): intent = i
        default: throw .noSuchUpload
        }
        owners.forget(ref)
        let listed = try UploadError.calling { () throws(ObjectStoreError) in
            try storage.listParts(key: ref.key, uploadId: ref.uploadId)
        }
        var byNumber: [Int: (etag: String, size: Int64)] = [:]
        byNumber.reserveCapacity(listed.count)
        for p in listed { byNumber[p.partNumber] = (p.etag, p.size) }
        let checked = try PartRules.checkCompletion(given: parts, listed: byNumber, maxBytes: intent.maxBytes)
        let completed = try UploadError.calling { () throws(ObjectStoreError) in
            try completeStorage.completeMultipartUpload(
                key: ref.key, uploadId: ref.uploadId, parts: checked.parts.map { ($0.number, $0.etag) })
        }
        let confirmed = try confirmer.confirm(
            Confirmation(imageKey: ref.pairKey, metadataJSON: intent.metadataJSON ?? "{}"), owner: owner)
        return CompletedMultipart(record: confirmed.record, location: completed.location)
    }
}
