import Config
import HTTPServer
import JSON
import ObjectStore
import Records
import SigV4

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

    /// `storage` nil switches the storage check off (`s3.verifyUploads = false`, for measuring the store).
    init(
        config: PresigndConfig, store: any RecordStore, committer: GroupCommitter, ownership: ImageKeyOwnership,
        storage: (any ObjectStorage)?, readSigner: RotatingPresigner, gate: Gate, env: AppEnvironment
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
        let intent: UploadIntent
        switch try ownership.holder(of: c.imageKey) {
        case .nobody: throw APIError.intentNotFound
        case .record(let existing): return try answerExisting(existing, caller: caller)
        case .intent(let i): intent = i
        }
        guard intent.ownerId == caller.userId else { throw APIError.issuedToAnotherUser }
        let object: VerifiedObject? = try storage.map { try verifiedObject(intent, in: $0) }
        let record = ImageRecord(
            id: env.newUUID(), ownerId: caller.userId, imageKey: c.imageKey,
            objectKey: object?.key ?? intent.objectKey, type: intent.type,
            contentType: object?.contentType ?? intent.contentType ?? intent.allowedContentTypes.first
                ?? "application/octet-stream",
            size: object?.info.size ?? 0, etag: object?.info.etag ?? "", metadataJSON: c.metadataJSON,
            createdAtMs: env.nowMillis())
        switch try committer.insert(record) {
        case .inserted(let r): return recordResponse(r, status: 201)
        case .existing(let r): return try answerExisting(r, caller: caller)
        }
    }

    /// 200 with the record when it is the caller's; 409 otherwise.
    private func answerExisting(_ r: ImageRecord, caller: Caller) throws(APIError) -> Response {
        guard r.ownerId == caller.userId else { throw .recordedByAnotherUser }
        return recordResponse(r, status: 200)
    }

    /// The uploaded object of `intent` as it will be recorded: where it lives, what storage says of it,
    /// and its media type.
    struct VerifiedObject {
        /// The key it lives under now (the permanent key once promoted).
        let key: String
        /// Its size and ETag as storage reported them.
        let info: ObjectInfo
        /// Its media type, lower case, without parameters.
        let contentType: String
    }

    /// Finds the object (under the upload key, or under the permanent key when an earlier confirmation
    /// promoted it but did not finish), deletes it when it breaks the intent's size or content-type
    /// limits, and promotes it by copy + delete when the type has a permanent key.
    func verifiedObject(_ intent: UploadIntent, in storage: any ObjectStorage) throws -> VerifiedObject {
        var key = intent.objectKey
        var info = try storage.head(key: key)
        var promoted = false
        if info == nil, let permanent = intent.permanentKey {
            info = try storage.head(key: permanent)
            if info != nil {
                key = permanent
                promoted = true
            }
        }
        guard let found = info else { throw APIError.imageNotUploaded }
        if found.size > intent.maxBytes {
            try storage.delete(key: key)
            throw APIError.imageTooLarge(size: found.size, limit: intent.maxBytes)
        }
        guard let media = RequestValidation.mediaType(found.contentType), intent.allowedContentTypes.contains(media)
        else {
            try storage.delete(key: key)
            throw APIError.contentTypeNotAllowed(
                stored: found.contentType, type: intent.type, allowed: intent.allowedContentTypes)
        }
        if let permanent = intent.permanentKey, !promoted {
            try storage.copy(from: intent.objectKey, to: permanent, expecting: found)
            try storage.delete(key: intent.objectKey)
            key = permanent
        }
        return VerifiedObject(key: key, info: found, contentType: media)
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
