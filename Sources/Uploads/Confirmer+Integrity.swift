import Config
import Crypto
import ObjectStore
import Records

extension Confirmer {
    /// Proves the digests `intent` declared against the object under `key` (whose HEAD or ranged GET
    /// answered `info`), before anything is recorded, and returns the SHA-256 the record holds (base64):
    /// the declared one once proven, else one computed when the type's `computeSha256` is on, else nil.
    /// A digest the object does not have is `reject`ed (422 `CHECKSUM_MISMATCH`, the object deleted).
    ///
    /// The cheapest proof first, from what storage says of the object:
    /// - its own SHA-256 (`x-amz-checksum-sha256` of the whole object, asked with
    ///   `x-amz-checksum-mode: ENABLED` of a store that keeps one, `s3.checksums`): the declared SHA-256
    ///   is proven, or refused, without reading a byte;
    /// - its ETag, when the ETag is the object's MD5 (`ObjectInfo.md5FromETag`: a single PUT, no SSE-KMS
    ///   or SSE-C): a declared MD5 equal to it is proven. An ETag that differs proves nothing by itself
    ///   (some stores' ETags are not MD5s without saying so), and an MD5 never proves a SHA-256 declared
    ///   beside it (an uploader can make two files with one MD5).
    ///
    /// What is left unproven is read (`verifyChecksum = read`, the default): the object streamed from
    /// storage under its ETag (`If-Match`) and hashed in bounded memory (`ObjectStorage.digests`), the
    /// one case where an upload's bytes pass through presignd. With `trust-store` nothing is read: an
    /// unproven MD5 is let be, an unproven SHA-256 is not recorded. `computeSha256` reads an object
    /// whose SHA-256 nothing else gave. Nothing declared and nothing to compute costs nothing here.
    func proveDeclared(_ intent: UploadIntent, key: String, info: ObjectInfo, in storage: any ObjectStorage)
        throws(UploadError) -> String?
    {
        let config = catalog.type(named: intent.type)?.config
        let compute = config?.computeSha256 ?? false
        let declaredSHA256 = intent.checksumSHA256
        let declaredMD5 = intent.contentMD5
        guard declaredSHA256 != nil || declaredMD5 != nil || compute else { return nil }
        var info = info
        if storeChecksums.sha256, info.checksumSHA256 == nil, declaredSHA256 != nil || compute,
            let asked = try UploadError.calling({ () throws(ObjectStoreError) in
                try storage.headWithChecksums(key: key)
            })
        {
            info = asked
        }
        var recorded: String?
        var sha256Proven = declaredSHA256 == nil
        if let stored = info.checksumSHA256 {
            if let declared = declaredSHA256 {
                guard stored == declared else {
                    throw try reject(
                        .checksum(ChecksumMismatch(digest: .sha256, declared: declared, actual: stored)), key: key,
                        intent: intent, info: info, in: storage)
                }
                sha256Proven = true
                recorded = declared
            } else if compute {
                recorded = stored
            }
        }
        let md5Proven = declaredMD5 == nil || Self.hex(ofBase64: declaredMD5!) == info.md5FromETag
        let unproven = !sha256Proven || !md5Proven
        let reads = (unproven && (config?.verifyChecksum ?? .read) == .read) || (compute && recorded == nil)
        guard reads else { return recorded }
        guard
            let read = try UploadError.calling({ () throws(ObjectStoreError) in
                try storage.digests(key: key, ifMatch: info.etag)
            })
        else { throw .imageNotUploaded(expiredAtMs: nil) }
        checksumReads.wrappingAdd(1, ordering: .relaxed)
        checksumReadBytes.wrappingAdd(Int(clamping: read.size), ordering: .relaxed)
        let sha256 = Base64.encode(read.sha256)
        if let declared = declaredSHA256, declared != sha256 {
            throw try reject(
                .checksum(ChecksumMismatch(digest: .sha256, declared: declared, actual: sha256)), key: key,
                intent: intent, info: info, in: storage)
        }
        let md5 = Base64.encode(read.md5)
        if let declared = declaredMD5, declared != md5 {
            throw try reject(
                .checksum(ChecksumMismatch(digest: .md5, declared: declared, actual: md5)), key: key, intent: intent,
                info: info, in: storage)
        }
        return declaredSHA256 ?? (compute ? sha256 : recorded)
    }

    /// The lower-case hex of the bytes `base64` spells (a declared MD5, checked at issue), or nil.
    static func hex(ofBase64 base64: String) -> String? {
        Base64.decode(base64).map { Hex.encode($0) }
    }

    /// The owner's newest record of `intent`'s type whose SHA-256 is `sha256`, when the type
    /// deduplicates (`types.<T>.dedup`); nil otherwise (or without a SHA-256).
    func duplicate(of intent: UploadIntent, sha256: String?) throws(UploadError) -> ImageRecord? {
        guard let sha256, catalog.type(named: intent.type)?.config.dedup == true else { return nil }
        let page = try UploadError.storing { () throws(RecordsError) in
            try store.listRecords(ownerId: intent.ownerId, sha256: sha256, type: intent.type, limit: 1, after: nil)
        }
        return page.records.first { $0.imageKey != intent.imageKey }
    }

    /// Settles `intent`'s claim (held under `token`) by `existing`, the owner's record of the same bytes:
    /// the new object goes first (never the record's own), then the claim is settled durably, so a
    /// repeated confirmation answers `existing` again and the janitor leaves the key alone. False when
    /// the claim was taken over meanwhile (the new holder finds no object).
    func settleDuplicate(_ intent: UploadIntent, object: VerifiedObject, existing: ImageRecord, token: String)
        throws(UploadError) -> Bool
    {
        if let storage, object.key != existing.objectKey {
            try UploadError.calling { () throws(ObjectStoreError) in try storage.delete(key: object.key) }
        }
        return try UploadError.storing { () throws(RecordsError) in
            try store.settleDeduplicated(
                imageKey: intent.imageKey, token: token, recordId: existing.id, nowMs: env.nowMillis())
        }
    }

    /// The record a settled claim names when it was settled by another key's record of the same bytes
    /// (`settleDuplicate`), if that record is still `owner`'s; nil for any other settled claim.
    func deduplicatedRecord(_ settled: IntentClaim, owner: String) throws(UploadError) -> ImageRecord? {
        guard settled.state == .recorded, settled.reason == Self.deduplicatedReason, let id = settled.recordId else {
            return nil
        }
        return try UploadError.storing { () throws(RecordsError) in try store.record(id: id, ownerId: owner) }
    }
}
