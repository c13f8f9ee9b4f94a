import Config
import HTTP1
import HTTPServer
import JSON
import ObjectStore
import Records
import SigV4

/// The records that follow an upload: `POST /images` confirms, `GET /images/{id}`, `GET /images` and
/// `DELETE /images/{id}` read and remove the caller's own. Every handler's work runs on the worker pool
/// (storage calls, database commits); a 201 is sent only after its record is durable.
final class ImagesService: Sendable {
    /// The largest `metadata` object accepted, serialised.
    static let maxMetadataBytes = 16 * 1024

    private let store: any RecordStore
    private let committer: GroupCommitter
    private let intents: IntentWriter
    private let storage: S3Client?
    private let readSigner: Presigner
    private let bucket: String
    private let readUrlExpires: Int
    private let cdnBaseUrl: String
    private let knownTypes: Set<String>
    private let gate: Gate
    private let env: AppEnvironment
    private let maxJsonBodyBytes: Int

    /// `storage` nil switches the storage check off (`s3.verifyUploads = false`, for measuring the store).
    init(
        config: PresigndConfig, store: any RecordStore, committer: GroupCommitter, intents: IntentWriter,
        storage: S3Client?, readSigner: Presigner, gate: Gate, env: AppEnvironment
    ) {
        self.store = store
        self.committer = committer
        self.intents = intents
        self.storage = storage
        self.readSigner = readSigner
        self.bucket = config.s3.bucket
        self.readUrlExpires = config.presign.readUrlExpiresSeconds
        var cdn = config.presign.cdnBaseUrl
        while cdn.hasSuffix("/") { cdn.removeLast() }
        self.cdnBaseUrl = cdn
        self.knownTypes = Set(config.types.map(\.name))
        self.gate = gate
        self.env = env
        self.maxJsonBodyBytes = config.server.maxJsonBodyBytes
    }

    func routes() -> [Route] {
        [
            Route(.POST, "/images", maxBodyBytes: maxJsonBodyBytes) { [self] r in confirm(r) },
            Route(.GET, "/images") { [self] r in list(r) },
            Route(.GET, "/images/{id}") { [self] r in read(r) },
            Route(.DELETE, "/images/{id}") { [self] r in remove(r) },
        ]
    }

    // MARK: - POST /images

    func confirm(_ req: Request) -> HandlerResult {
        gate.serve(req, .confirm) { caller in confirm(req, caller: caller) }
    }

    private func confirm(_ req: Request, caller: Caller) -> HandlerResult {
        if let ct = req.header("Content-Type"), !PresignService.isJSONContentType(ct) {
            return .respond(APIError.error(415, "UNSUPPORTED_MEDIA_TYPE", "send the body as application/json"))
        }
        let doc: JSONValue
        do {
            doc = try JSONParser(limits: .init(maxDepth: 32, maxBytes: maxJsonBodyBytes)).parse(req.body)
        } catch {
            return .respond(APIError.error(400, "MALFORMED_JSON", "the body is not valid JSON: \(error.message)"))
        }
        guard let object = doc.objectValue else {
            return .respond(APIError.unprocessable([("body", "the body must be a JSON object")]))
        }
        var errors = FieldErrors()
        var imageKey: String?
        switch object["imageKey"] {
        case nil: errors.add("imageKey", "imageKey is required")
        case .some(let v):
            if let s = v.stringValue, let k = ImagesService.canonicalImageKey(s) {
                imageKey = k
            } else {
                errors.add("imageKey", "imageKey must be a UUID or a key issued by GET /presigned-url")
            }
        }
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
        guard errors.isEmpty, let imageKey else { return .respond(APIError.unprocessable(errors.list)) }
        let metadataJSON = String(decoding: metadata, as: UTF8.self)
        return .blocking { [self] in
            confirmBlocking(caller: caller, imageKey: imageKey, metadataJSON: metadataJSON)
        }
    }

    private func confirmBlocking(caller: Caller, imageKey: String, metadataJSON: String) -> Response {
        do {
            if let existing = try store.record(imageKey: imageKey) {
                return existing.ownerId == caller.userId
                    ? recordResponse(existing, status: 200)
                    : APIError.error(409, "ALREADY_RECORDED", "this image is recorded by another user")
            }
            guard let intent = try intents.intent(imageKey: imageKey) else {
                return APIError.error(404, "INTENT_NOT_FOUND", "no upload URL was issued for this imageKey")
            }
            guard intent.ownerId == caller.userId else {
                return APIError.error(403, "FORBIDDEN", "this imageKey was issued to another user")
            }
            var objectKey = intent.objectKey
            var size: Int64 = 0
            var etag = ""
            var contentType = intent.contentType ?? intent.allowedContentTypes.first ?? "application/octet-stream"
            if let storage {
                var info = try storage.head(key: intent.objectKey)
                var promoted = false
                if info == nil, let permanent = intent.permanentKey {
                    // A confirmation that promoted the object but did not finish: the copy is there.
                    info = try storage.head(key: permanent)
                    promoted = info != nil
                }
                guard let found = info else {
                    return APIError.error(404, "IMAGE_NOT_UPLOADED", "the object is not in storage yet")
                }
                let media = ImagesService.mediaType(found.contentType)
                if found.size > intent.maxBytes {
                    try storage.delete(key: promoted ? intent.permanentKey! : intent.objectKey)
                    return APIError.error(
                        422, "IMAGE_TOO_LARGE", "the object is \(found.size) bytes; the limit is \(intent.maxBytes)")
                }
                guard let media, intent.allowedContentTypes.contains(media) else {
                    try storage.delete(key: promoted ? intent.permanentKey! : intent.objectKey)
                    return APIError.error(
                        422, "CONTENT_TYPE_NOT_ALLOWED",
                        ImagesService.contentTypeRefusal(
                            stored: found.contentType, type: intent.type, allowed: intent.allowedContentTypes))
                }
                if let permanent = intent.permanentKey {
                    if !promoted {
                        try storage.copy(from: intent.objectKey, to: permanent, expecting: found)
                        try storage.delete(key: intent.objectKey)
                    }
                    objectKey = permanent
                }
                size = found.size
                etag = found.etag
                contentType = media
            }
            let record = ImageRecord(
                id: env.newUUID(), ownerId: caller.userId, imageKey: imageKey, objectKey: objectKey, type: intent.type,
                contentType: contentType, size: size, etag: etag, metadataJSON: metadataJSON,
                createdAtMs: env.nowMillis())
            switch try committer.insert(record) {
            case .inserted(let r):
                return recordResponse(r, status: 201)
            case .existing(let r):
                return r.ownerId == caller.userId
                    ? recordResponse(r, status: 200)
                    : APIError.error(409, "ALREADY_RECORDED", "this image is recorded by another user")
            }
        } catch let e as ObjectStoreError {
            return ImagesService.storageFailure(e)
        } catch {
            return APIError.error(503, "STORE_UNAVAILABLE", "the records store is not available")
        }
    }

    // MARK: - GET /images/{id}, GET /images, DELETE /images/{id}

    func read(_ req: Request) -> HandlerResult {
        ownedRecord(req) { [self] r, _ in recordResponse(r, status: 200) }
    }

    func list(_ req: Request) -> HandlerResult {
        gate.serve(req, .confirm) { caller in list(req, caller: caller) }
    }

    private func list(_ req: Request, caller: Caller) -> HandlerResult {
        guard let items = req.queryItems() else {
            return .respond(
                APIError.error(400, "MALFORMED_QUERY", "the query string is not valid percent-encoded UTF-8"))
        }
        var type: String?
        var limit = 20
        var cursor: RecordCursor?
        var errors = FieldErrors()
        for (name, value) in items {
            switch name {
            case "type":
                if knownTypes.contains(value) { type = value } else { errors.add("type", "unknown type") }
            case "limit":
                if PresignService.isNumericId(value), let n = Int(value), (1...100).contains(n) {
                    limit = n
                } else {
                    errors.add("limit", "limit must be 1...100")
                }
            case "cursor":
                if let c = RecordCursor(token: value) { cursor = c } else { errors.add("cursor", "invalid cursor") }
            default: continue
            }
        }
        guard errors.isEmpty else { return .respond(APIError.unprocessable(errors.list)) }
        return .blocking { [self, type, limit, cursor] in
            do {
                let page = try store.listRecords(ownerId: caller.userId, type: type, limit: limit, after: cursor)
                var w = JSONWriter(reservingCapacity: 512 * max(1, page.records.count))
                w.beginObject()
                w.key("items")
                w.beginArray()
                for r in page.records { writeRecord(r, to: &w) }
                w.endArray()
                w.key("nextCursor")
                if let next = page.next { w.string(next.token) } else { w.null() }
                w.endObject()
                return .json(200, w.bytes, extraHeaders: [("Cache-Control", "no-store")])
            } catch {
                return APIError.error(503, "STORE_UNAVAILABLE", "the records store is not available")
            }
        }
    }

    func remove(_ req: Request) -> HandlerResult {
        ownedRecord(req) { [self] (r, caller) throws in
            // The object first: a record never points at a deleted object.
            try storage?.delete(key: r.objectKey)
            _ = try store.deleteRecord(id: r.id, ownerId: caller.userId)
            return Response(status: 204)
        }
    }

    /// The shared shape of `GET` and `DELETE /images/{id}`: admit the caller, parse the id, then on a
    /// worker find the caller's record (404 otherwise) and hand it to `body`; failures of the store or of
    /// storage become 503/502/504.
    private func ownedRecord(
        _ req: Request, _ body: @escaping @Sendable (ImageRecord, Caller) throws -> Response
    ) -> HandlerResult {
        gate.serve(req, .confirm) { caller in ownedRecord(req, caller: caller, body) }
    }

    private func ownedRecord(
        _ req: Request, caller: Caller, _ body: @escaping @Sendable (ImageRecord, Caller) throws -> Response
    ) -> HandlerResult {
        guard let id = req.parameter("id").flatMap(PresignService.canonicalUUID) else {
            return .respond(APIError.error(404, "IMAGE_NOT_FOUND", "no such image"))
        }
        return .blocking { [self] in
            do {
                guard let r = try store.record(id: id, ownerId: caller.userId) else {
                    return APIError.error(404, "IMAGE_NOT_FOUND", "no such image")
                }
                return try body(r, caller)
            } catch let e as ObjectStoreError {
                return ImagesService.storageFailure(e)
            } catch {
                return APIError.error(503, "STORE_UNAVAILABLE", "the records store is not available")
            }
        }
    }

    // MARK: - Rendering

    private func recordResponse(_ r: ImageRecord, status: Int) -> Response {
        var w = JSONWriter(reservingCapacity: 768)
        writeRecord(r, to: &w)
        return .json(status, w.bytes, extraHeaders: [("Cache-Control", "no-store")])
    }

    private func writeRecord(_ r: ImageRecord, to w: inout JSONWriter) {
        w.beginObject()
        w.key("id")
        w.string(r.id)
        w.key("imageKey")
        w.string(r.imageKey)
        w.key("key")
        w.string(r.objectKey)
        w.key("type")
        w.string(r.type)
        w.key("contentType")
        w.string(r.contentType)
        w.key("size")
        w.int(r.size)
        w.key("etag")
        w.string(r.etag)
        w.key("metadata")
        w.raw(r.metadataJSON)
        w.key("createdAt")
        w.string(Timestamp.iso8601Millis(r.createdAtMs))
        w.key("url")
        if let url = readURL(for: r.objectKey) { w.string(url) } else { w.null() }
        w.endObject()
    }

    /// A CDN URL when configured, else a fresh signed GET.
    private func readURL(for key: String) -> String? {
        if !cdnBaseUrl.isEmpty { return cdnBaseUrl + "/" + key }
        let now = env.nowMillis() / 1000
        return try? readSigner.presign(
            PresignRequest(method: "GET", bucket: bucket, key: key, expires: readUrlExpires), now: now
        ).url
    }

    // MARK: - Helpers

    /// A UUID (lower-cased) or a safe object key; nil otherwise.
    static func canonicalImageKey(_ s: String) -> String? {
        if let u = PresignService.canonicalUUID(s) { return u }
        return KeyTemplate.isSafeKey(s) ? s : nil
    }

    /// The media type of a Content-Type value, lower-cased, without parameters.
    static func mediaType(_ value: String?) -> String? {
        guard let value else { return nil }
        let media = value.split(separator: ";", maxSplits: 1).first.map { $0.trimmingSpaces().lowercased() }
        return media.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The message of `CONTENT_TYPE_NOT_ALLOWED`: the content type storage holds (at most
    /// `maxShownContentType` characters of it) and the ones the upload type allows, so the uploader
    /// can fix its `Content-Type`.
    static func contentTypeRefusal(stored: String?, type: String, allowed: [String]) -> String {
        let allows = "; type \(type) allows " + allowed.joined(separator: ", ")
        guard let stored, !stored.isEmpty else { return "the object was stored without a content type" + allows }
        var shown = String(stored.prefix(maxShownContentType))
        if shown.count < stored.count { shown += "…" }
        return "the object was stored with content type \"\(shown)\"" + allows
    }

    /// The most characters of a stored content type repeated in an error message.
    static let maxShownContentType = 100

    /// 502/503/504 for a failing storage call; the detail stays in the server.
    static func storageFailure(_ e: ObjectStoreError) -> Response {
        switch e {
        case .timeout: return APIError.error(504, "STORAGE_TIMEOUT", "the object store did not answer in time")
        case .status: return APIError.error(502, "STORAGE_ERROR", "the object store refused the request")
        default: return APIError.error(503, "STORAGE_UNAVAILABLE", "the object store is not available")
        }
    }
}
