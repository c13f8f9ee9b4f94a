import ImageProbe
import ObjectStore
import Records

/// The uploaded object of an intent as it will be recorded: where it lives, what storage says of it, its
/// media type, and what the content check found in it.
struct VerifiedObject {
    /// The key it lives under now (the permanent key once promoted).
    let key: String
    /// Its size and ETag as storage reported them.
    let info: ObjectInfo
    /// Its media type, lower case, without parameters: the detected format's when the content check
    /// ran, else the one storage holds.
    let contentType: String
    /// The format and pixel size in its first bytes; nil when the type's content check is off.
    var image: DetectedImage? = nil
    /// The SHA-256 the record holds (base64): declared and proven, or computed; nil when neither.
    var sha256: String? = nil
    /// The owner's record of the same type and bytes, when the type deduplicates (`types.<T>.dedup`):
    /// the confirmation answers it instead of recording this object, which is not promoted.
    var duplicate: ImageRecord? = nil
}

extension Confirmer {
    /// Finds the object (under the upload key, or under the permanent key when an earlier confirmation
    /// promoted it but did not finish), deletes it when it breaks the intent's size or content-type
    /// limits (a declared size exactly) or, for a type with the content check on, when its first bytes
    /// are no image of a format the type allows, or when its bytes are not the declared ones
    /// (`proveDeclared`); then, unless the owner has a record of the same bytes to answer instead
    /// (`duplicate`), promotes it by copy + delete when the type has a permanent key.
    ///
    /// With the content check on, one ranged GET of the first 64 KiB stands in for the HEAD (it answers
    /// the same size, type and ETag), so the check costs no extra request. The promoted copy is stored
    /// with the detected type when the upload was labelled otherwise. A generic stored type (none,
    /// `binary/octet-stream`, `application/octet-stream`) passes the content-type rule when the check is
    /// on: the bytes decide, and the record and the copy take the detected type.
    func verifiedObject(_ intent: UploadIntent, in storage: any ObjectStorage) throws(UploadError) -> VerifiedObject {
        let allowedFormats = catalog.contentCheck(of: intent)
        let reads = allowedFormats != nil
        var key = intent.objectKey
        var found = try Self.look(at: key, in: storage, reading: reads)
        var promoted = false
        if found == nil, let permanent = intent.permanentKey {
            found = try Self.look(at: permanent, in: storage, reading: reads)
            if found != nil {
                key = permanent
                promoted = true
            }
        }
        guard let found else {
            // A URL past its expiry can no longer be used: say so, rather than "not yet".
            let expired = env.nowMillis() >= intent.expiresAtMs
            throw .imageNotUploaded(expiredAtMs: expired ? intent.expiresAtMs : nil)
        }
        let info = found.info
        if info.size > intent.maxBytes {
            // Smaller than the type's limit: the size declared when the URL was issued.
            let typeLimit = catalog.type(named: intent.type)?.config.maxBytes
            throw try refuse(
                intent, key: key, info: info, in: storage, reason: "IMAGE_TOO_LARGE",
                message: "the object is \(info.size) bytes, over the limit of \(intent.maxBytes)",
                .imageTooLarge(
                    size: info.size, limit: intent.maxBytes, type: intent.type,
                    declared: typeLimit.map { intent.maxBytes < $0 } ?? false))
        }
        if let declared = intent.declaredSize, info.size != declared {
            throw try refuse(
                intent, key: key, info: info, in: storage, reason: "SIZE_MISMATCH",
                message: "the object is \(info.size) bytes, not the declared \(declared)",
                .sizeMismatch(size: info.size, declared: declared))
        }
        let probe = reads ? ImageProbe.inspect(found.bytes, totalLength: Int(clamping: info.size)) : nil
        let detected = probe?.image
        // A promotion finished earlier stored the copy under the detected type, which the intent may not list.
        // A generic stored type (`curl -T` sends none, and storage then says `binary/octet-stream`) says
        // nothing of the bytes: with the content check on, the bytes are judged below instead.
        let media = UploadRules.mediaType(info.contentType)
        let judgedByBytes = reads && Self.isGeneric(media)
        let labelAllowed = media.map {
            intent.allowedContentTypes.contains($0) || (promoted && $0 == detected?.mimeType)
        }
        guard judgedByBytes || labelAllowed == true else {
            throw try refuse(
                intent, key: key, info: info, in: storage, reason: "CONTENT_TYPE_NOT_ALLOWED",
                message: "the object's content type is not one type \(intent.type) allows",
                .contentTypeNotAllowed(stored: info.contentType, type: intent.type, allowed: intent.allowedContentTypes)
            )
        }
        if let probe, let allowedFormats {
            var mismatch: ContentMismatch?
            switch probe {
            case .notImage(let refusal): mismatch = .notImage(refusal)
            case .image(let image) where !allowedFormats.contains(image.mimeType):
                mismatch = .formatNotAllowed(detected: image.format, type: intent.type, allowed: allowedFormats)
            case .image: mismatch = nil
            }
            if let mismatch {
                throw try reject(.content(mismatch), key: key, intent: intent, info: info, in: storage)
            }
        }
        // The content check ran whenever the stored type was generic, so `detected` is set then.
        let recordedType = detected?.mimeType ?? media ?? ""
        let sha256 = try proveDeclared(intent, key: key, info: info, in: storage)
        if let existing = try duplicate(of: intent, sha256: sha256) {
            return VerifiedObject(
                key: key, info: info, contentType: recordedType, image: detected, sha256: sha256, duplicate: existing)
        }
        if let permanent = intent.permanentKey, !promoted, !catalog.scans(intent) {
            // `confirm` stored the intent first: a stored row names the permanent key. A scanned type's
            // object is promoted only once its scan passes (`ScanWorker`): the record keeps the key.
            try UploadError.calling { () throws(ObjectStoreError) in
                try storage.copy(
                    from: intent.objectKey, to: permanent, contentType: recordedType == media ? nil : recordedType,
                    expecting: info)
                try storage.delete(key: intent.objectKey)
            }
            key = permanent
        }
        return VerifiedObject(key: key, info: info, contentType: recordedType, image: detected, sha256: sha256)
    }

    /// Refuses the uploaded object of `intent`, found at `key` as `info` says, with `error` (the one place a
    /// refusal of an uploaded object is settled): its `upload.rejected` event (`reason`, a stable code, and
    /// `message`) is written first, in a transaction of its own under an id of the intent and the object, so
    /// that a refusal repeated after a crash adds nothing; then the object is deleted. Returns `error` for
    /// the caller to throw; a failure of either step is thrown instead (the next confirmation refuses again).
    func refuse(
        _ intent: UploadIntent, key: String, info: ObjectInfo, in storage: any ObjectStorage, reason: String,
        message: String, _ error: UploadError
    ) throws(UploadError) -> UploadError {
        let rejected = webhooks.rejected(intent, key: key, info: info, reason: reason, message: message)
        if !rejected.isEmpty {
            try UploadError.storing { () throws(RecordsError) in try store.appendOutboxEvents(rejected) }
        }
        try UploadError.calling { () throws(ObjectStoreError) in try storage.delete(key: key) }
        return error
    }

    /// The stored media types that say nothing of the bytes: none, `binary/octet-stream` (what storage
    /// records for a PUT without `Content-Type`: AWS S3, RGW) and `application/octet-stream`.
    static func isGeneric(_ media: String?) -> Bool {
        guard let media else { return true }
        return media == "binary/octet-stream" || media == "application/octet-stream"
    }

    /// What storage holds under `key`: with `reading`, its first `ImageProbeLimits().maxBytes` bytes and
    /// what the ranged GET says of the whole object; without, a HEAD's answer and no bytes. Nil when there
    /// is no object.
    static func look(at key: String, in storage: any ObjectStorage, reading: Bool) throws(UploadError) -> ObjectPrefix?
    {
        try UploadError.calling { () throws(ObjectStoreError) in
            if reading { return try storage.readPrefix(key: key, maxBytes: ImageProbeLimits().maxBytes) }
            return try storage.head(key: key).map { ObjectPrefix(bytes: [], info: $0) }
        }
    }
}
