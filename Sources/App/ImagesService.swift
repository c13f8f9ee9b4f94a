import Config
import HTTPServer
import ImageProbe
import JSON
import Logging
import ObjectStore
import Records
import SigV4
import Synchronization
import System

/// The records that follow an upload: `POST /images` confirms, `GET /images/{id}`, `GET /images` and
/// `DELETE /images/{id}` read and remove the caller's own. Each handler checks the request on the event
/// loop and does its work on the worker pool (storage calls, database commits); a 201 is sent only
/// after its record is durable. Responses are written in `ImagesService+Rendering.swift`.
final class ImagesService: Sendable {
    /// The largest `metadata` object accepted, serialised.
    static let maxMetadataBytes = 16 * 1024

    private let store: any RecordStore
    private let committer: GroupCommitter
    private let ownership: ImageKeyOwnership
    private let storage: (any ObjectStorage)?
    /// Signs the read URLs of records with the current credentials (a URL is shortened to their life;
    /// none is given when they are about to expire).
    let readSigner: RotatingPresigner
    /// The bucket records' objects are in.
    let bucket: String
    /// Lifetime of a read URL, in seconds.
    let readUrlExpires: Int
    /// Records are read at `cdnBaseUrl/key` when set, else by a signed GET.
    let cdnBaseUrl: String?
    private let knownTypes: Set<String>
    private let gate: Gate
    /// The clock and the source of UUIDs.
    let env: AppEnvironment
    private let maxJsonBodyBytes: Int
    /// The media types the content check allows, by type name, for the types whose check is on
    /// (`types.*.contentCheck`, docs/content-check.md).
    private let checkedTypes: [String: [String]]
    /// Where content-check refusals are logged (nil: not logged).
    private let log: LogSink?
    /// Objects refused by the content check (`presignd_content_refused_total`).
    let contentRefusals = Atomic<Int>(0)
    /// Confirmations that waited for their queued intent to be stored
    /// (`presignd_intents_flushed_before_confirm_total`).
    let flushesBeforeCopy = Atomic<Int>(0)

    /// `storage` nil switches the storage check off (`s3.verifyUploads = false`, for measuring the store),
    /// and with it the content check.
    init(
        config: PresigndConfig, store: any RecordStore, committer: GroupCommitter, ownership: ImageKeyOwnership,
        storage: (any ObjectStorage)?, readSigner: RotatingPresigner, gate: Gate, env: AppEnvironment,
        log: LogSink? = nil
    ) {
        self.store = store
        self.committer = committer
        self.ownership = ownership
        self.storage = storage
        self.readSigner = readSigner
        self.bucket = config.s3.bucket
        self.readUrlExpires = config.presign.readUrlExpiresSeconds
        self.cdnBaseUrl = config.presign.cdnBaseUrl
        self.knownTypes = Set(config.types.map(\.name))
        self.gate = gate
        self.env = env
        self.maxJsonBodyBytes = config.server.maxJsonBodyBytes
        var checked: [String: [String]] = [:]
        for type in config.types where type.contentCheck { checked[type.name] = type.contentTypes }
        self.checkedTypes = checked
        self.log = log
    }

    /// The four routes, each behind the gate's confirm limits.
    func routes() -> [Route] {
        let confirmRoute = gate.route(
            .confirm, validate: { [self] (_, request) throws(APIError) in try confirmation(request) },
            perform: { [self] caller, c in try confirm(c, caller: caller) })
        let listRoute = gate.route(
            .confirm, validate: { [self] (_, request) throws(APIError) in try listing(request) },
            perform: { [self] caller, l in try list(l, caller: caller) })
        let readRoute = gate.route(
            .confirm, validate: { (_, request) throws(APIError) in try ImagesService.recordId(request) },
            perform: { [self] caller, id in recordResponse(try ownedRecord(id, caller: caller), status: 200) })
        let removeRoute = gate.route(
            .confirm, validate: { (_, request) throws(APIError) in try ImagesService.recordId(request) },
            perform: { [self] caller, id in try remove(ownedRecord(id, caller: caller), caller: caller) })
        return [
            Route(.POST, "/images", maxBodyBytes: maxJsonBodyBytes, handler: confirmRoute),
            Route(.GET, "/images", handler: listRoute),
            Route(.GET, "/images/{id}", handler: readRoute),
            Route(.DELETE, "/images/{id}", handler: removeRoute),
        ]
    }

    // MARK: - POST /images

    /// A checked confirmation: the image key and the metadata to store with the record.
    struct Confirmation: Sendable {
        /// The image key, canonical (a lower-case UUID, or a key issued by `GET /presigned-url`).
        let imageKey: String
        /// The `metadata` object, serialised (`{}` when absent).
        let metadataJSON: String
    }

    /// Checks a confirmation body on the event loop.
    func confirmation(_ req: Request) throws(APIError) -> Confirmation {
        let object = try RequestValidation.jsonObject(req, maxDepth: 32, maxBytes: maxJsonBodyBytes)
        var errors = FieldErrors()
        let imageKey = RequestValidation.requiredString(
            object, "imageKey", invalid: "imageKey must be a UUID or a key issued by GET /presigned-url",
            errors: &errors, canonical: RequestValidation.canonicalImageKey)
        var metadata: [UInt8] = Array("{}".utf8)
        if let m = object["metadata"], !m.isNull {
            if m.objectValue != nil {
                metadata = m.serialized()
                if metadata.count > ImagesService.maxMetadataBytes {
                    errors.add("metadata", "metadata must be at most \(ImagesService.maxMetadataBytes) bytes")
                }
            } else {
                errors.add("metadata", "metadata must be a JSON object")
            }
        }
        guard errors.isEmpty, let imageKey else { throw .validation(errors) }
        return Confirmation(imageKey: imageKey, metadataJSON: String(decoding: metadata, as: UTF8.self))
    }

    /// On a worker: the caller's record of the key (200 when it exists, 201 when made now), after
    /// storage shows the object within the intent's limits and, for a type with a permanent key, after
    /// the object is promoted there.
    func confirm(_ c: Confirmation, caller: Caller) throws -> Response {
        try confirmUpload(c, caller: caller, existing: { recordResponse($0, status: 200) }) { record in
            switch try committer.insert(record) {
            case .inserted(let r): return recordResponse(r, status: 201)
            case .existing(let r): return try answerExisting(r, caller: caller)
            }
        }
    }

    /// The steps every confirmation shares (`POST /images` and the compatibility routes): the key's
    /// record or intent, the owner check, `check` of the intent, the storage check and promotion, then
    /// the new record handed to `keep` (which makes it durable); the caller's existing record of the
    /// key goes to `existing`. A record of another owner is a 409, an intent of another owner a 403.
    /// A confirmation without metadata (`{}`) keeps the intent's, if it has some (Uppy's `/s3/params`
    /// metadata, confirmed by `POST /images`).
    func confirmUpload<R>(
        _ c: Confirmation, caller: Caller, check: (UploadIntent) throws -> Void = { _ in },
        existing: (ImageRecord) throws -> R, keep: (ImageRecord) throws -> R
    ) throws -> R {
        let intent: UploadIntent
        switch try ownership.holder(of: c.imageKey) {
        case .nobody: throw APIError.intentNotFound
        case .record(let r):
            guard r.ownerId == caller.userId else { throw APIError.recordedByAnotherUser }
            return try existing(r)
        case .intent(let i): intent = i
        }
        guard intent.ownerId == caller.userId else { throw APIError.issuedToAnotherUser }
        try check(intent)
        // Before anything is copied or recorded, the intent is stored (docs/records.md).
        try makeDurable(intent)
        let object: VerifiedObject? = try storage.map { try verifiedObject(intent, in: $0) }
        let record = ImageRecord(
            id: env.newUUID(), ownerId: caller.userId, imageKey: c.imageKey,
            objectKey: object?.key ?? intent.objectKey, type: intent.type,
            contentType: object?.contentType ?? intent.contentType ?? intent.allowedContentTypes.first
                ?? "application/octet-stream",
            size: object?.info.size ?? 0, etag: object?.info.etag ?? "",
            metadataJSON: c.metadataJSON == "{}" ? intent.metadataJSON ?? c.metadataJSON : c.metadataJSON,
            createdAtMs: env.nowMillis(), detectedType: object?.image?.mimeType,
            width: (object?.image?.size?.width).map(Int64.init), height: (object?.image?.size?.height).map(Int64.init))
        return try keep(record)
    }

    /// 200 with the record when it is the caller's; 409 otherwise.
    func answerExisting(_ r: ImageRecord, caller: Caller) throws(APIError) -> Response {
        guard r.ownerId == caller.userId else { throw .recordedByAnotherUser }
        return recordResponse(r, status: 200)
    }

    /// The uploaded object of `intent` as it will be recorded: where it lives, what storage says of it,
    /// its media type, and what the content check found in it.
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
    }

    /// The media types the content check allows for `intent`, or nil when its type's check is off. A type
    /// no longer configured is checked when every type its intent allowed is one the check recognises.
    func contentCheck(of intent: UploadIntent) -> [String]? {
        if let allowed = checkedTypes[intent.type] { return allowed }
        if knownTypes.contains(intent.type) { return nil }
        return UploadTypeConfig.checksByDefault(intent.allowedContentTypes) ? intent.allowedContentTypes : nil
    }

    /// Finds the object (under the upload key, or under the permanent key when an earlier confirmation
    /// promoted it but did not finish), deletes it when it breaks the intent's size or content-type
    /// limits or, for a type with the content check on, when its first bytes are no image of a format the
    /// type allows; then promotes it by copy + delete when the type has a permanent key.
    ///
    /// With the content check on, one ranged GET of the first 64 KiB stands in for the HEAD (it answers
    /// the same size, type and ETag), so the check costs no extra request. The promoted copy is stored
    /// with the detected type when the upload was labelled otherwise.
    func verifiedObject(_ intent: UploadIntent, in storage: any ObjectStorage) throws -> VerifiedObject {
        let allowedFormats = contentCheck(of: intent)
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
        guard let found else { throw APIError.imageNotUploaded }
        let info = found.info
        if info.size > intent.maxBytes {
            try storage.delete(key: key)
            throw APIError.imageTooLarge(size: info.size, limit: intent.maxBytes)
        }
        let probe = reads ? ImageProbe.inspect(found.bytes, totalLength: Int(clamping: info.size)) : nil
        let detected = probe?.image
        // A promotion finished earlier stored the copy under the detected type, which the intent may not list.
        guard let media = RequestValidation.mediaType(info.contentType),
            intent.allowedContentTypes.contains(media) || (promoted && media == detected?.mimeType)
        else {
            try storage.delete(key: key)
            throw APIError.contentTypeNotAllowed(
                stored: info.contentType, type: intent.type, allowed: intent.allowedContentTypes)
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
                try storage.delete(key: key)
                contentRefusals.wrappingAdd(1, ordering: .relaxed)
                log?.info(
                    "upload refused by the content check",
                    ["type": intent.type, "reason": mismatch.code, "size": info.size, "owner": intent.ownerId])
                throw APIError.contentMismatch(mismatch)
            }
        }
        let recordedType = detected?.mimeType ?? media
        if let permanent = intent.permanentKey, !promoted {
            // `confirmUpload` stored the intent first: a stored row names the permanent key.
            try storage.copy(
                from: intent.objectKey, to: permanent, contentType: recordedType == media ? nil : recordedType,
                expecting: info)
            try storage.delete(key: intent.objectKey)
            key = permanent
        }
        return VerifiedObject(key: key, info: info, contentType: recordedType, image: detected)
    }

    /// Waits until `intent` is stored when it is still only in the intent writer's queue (issued within
    /// the last `records.intentFlushMs`, or waiting out a database outage), so that its row, which names
    /// the permanent key, is stored before anything is copied there: a crash after the copy then leaves
    /// an object the janitor finds through that row once the intent expires. It also means a record
    /// never exists before its intent's row, so a later removal of the intent (a replaced slot's) finds
    /// it instead of the writer storing it afterwards, confirmable again. The writer writes at once
    /// for a waiting flush (no second copy of the intent is written: SQLite's intent log would keep
    /// both). An intent already stored (the usual case: the upload took longer than one flush) costs one
    /// search of the queue. Throws `.unavailable` (503 `STORE_UNAVAILABLE`) when the intent is not
    /// stored within `Self.intentFlushTimeoutMs`, or its batch was dropped; nothing was copied then.
    func makeDurable(_ intent: UploadIntent) throws(RecordsError) {
        let intents = ownership.intents
        guard intents.pending(imageKey: intent.imageKey) != nil else { return }
        flushesBeforeCopy.wrappingAdd(1, ordering: .relaxed)
        guard intents.flush(timeoutMs: Self.intentFlushTimeoutMs) else {
            throw .unavailable("the intent of a confirmation was not stored in time; nothing was copied")
        }
        guard try intents.store.intent(imageKey: intent.imageKey) != nil else {
            throw .unavailable("the intent of a confirmation was not stored; nothing was copied")
        }
    }

    /// How long a confirmation waits for its queued intent to be stored before it answers 503.
    static let intentFlushTimeoutMs = 5_000

    /// What storage holds under `key`: with `reading`, its first `ImageProbeLimits().maxBytes` bytes and
    /// what the ranged GET says of the whole object; without, a HEAD's answer and no bytes. Nil when there
    /// is no object.
    static func look(at key: String, in storage: any ObjectStorage, reading: Bool) throws(ObjectStoreError)
        -> ObjectPrefix?
    {
        if reading { return try storage.readPrefix(key: key, maxBytes: ImageProbeLimits().maxBytes) }
        return try storage.head(key: key).map { ObjectPrefix(bytes: [], info: $0) }
    }

    // MARK: - GET /images, GET /images/{id}, DELETE /images/{id}

    /// A checked `GET /images` query.
    struct Listing: Sendable {
        /// Only records of this type, when given.
        let type: String?
        /// At most this many records (1...100).
        let limit: Int
        /// Records after this one, when given.
        let cursor: RecordCursor?
    }

    /// Checks the query of `GET /images` on the event loop.
    func listing(_ req: Request) throws(APIError) -> Listing {
        guard let items = req.queryItems() else { throw .malformedQuery }
        var type: String?
        var limit = 20
        var cursor: RecordCursor?
        var errors = FieldErrors()
        for (name, value) in items {
            switch name {
            case "type":
                if knownTypes.contains(value) { type = value } else { errors.add("type", "unknown type") }
            case "limit":
                if RequestValidation.isNumericId(value), let n = Int(value), (1...100).contains(n) {
                    limit = n
                } else {
                    errors.add("limit", "limit must be 1...100")
                }
            case "cursor":
                if let c = RecordCursor(token: value) { cursor = c } else { errors.add("cursor", "invalid cursor") }
            default: continue
            }
        }
        guard errors.isEmpty else { throw .validation(errors) }
        return Listing(type: type, limit: limit, cursor: cursor)
    }

    /// On a worker: one page of the caller's records.
    func list(_ l: Listing, caller: Caller) throws -> Response {
        let page = try store.listRecords(ownerId: caller.userId, type: l.type, limit: l.limit, after: l.cursor)
        return pageResponse(page)
    }

    /// The record id of `GET` and `DELETE /images/{id}`; a malformed one is a record that does not exist.
    static func recordId(_ req: Request) throws(APIError) -> String {
        guard let id = req.parameter("id").flatMap(RequestValidation.canonicalUUID) else { throw .imageNotFound }
        return id
    }

    /// On a worker: the caller's record with `id`, else 404.
    func ownedRecord(_ id: String, caller: Caller) throws -> ImageRecord {
        guard let r = try store.record(id: id, ownerId: caller.userId) else { throw APIError.imageNotFound }
        return r
    }

    /// On a worker: deletes the object, then the record (a record never points at a deleted object).
    func remove(_ r: ImageRecord, caller: Caller) throws -> Response {
        try storage?.delete(key: r.objectKey)
        _ = try store.deleteRecord(id: r.id, ownerId: caller.userId)
        return Response(status: 204)
    }
}
