import Config
import HTTPServer
import JSON
import ObjectStore
import Records
import SigV4

/// Uppy Companion's S3 routes under `uppy.prefix` (default `/s3`), so a page using `@uppy/aws-s3`
/// with `endpoint` set to presignd works unchanged:
///
/// | route | answer |
/// |---|---|
/// | `POST /s3/multipart` `{filename, type, metadata}` | `{key, uploadId, bucket}` |
/// | `GET /s3/multipart/{uploadId}/{partNumber}?key=` | `{url, expires}` |
/// | `GET /s3/multipart/{uploadId}/batch?key=&partNumbers=1,2` | `{presignedUrls: {"1": url, …}}` |
/// | `GET /s3/multipart/{uploadId}?key=` | `[{PartNumber, ETag, Size, LastModified}]` (every page) |
/// | `POST /s3/multipart/{uploadId}/complete?key=` `{parts}` | `{location, key, bucket, record}` |
/// | `DELETE /s3/multipart/{uploadId}?key=` | `{}` |
/// | `GET /s3/params?filename=&type=&metadata[k]=v` | a presigned PUT or POST |
///
/// An upload is the caller's when its intent (recorded at creation under the pair key
/// `key#uploadId`, which no other image key can equal: `#` is not in keys) names the caller; any other
/// pair is `NO_SUCH_UPLOAD`, the same answer storage's `NoSuchUpload` gets. Requests are checked on the
/// event loop; storage and the records store are called on the worker pool. Errors are
/// `CompanionError`s; the gate's own refusals (401, 429) keep the house's shape.
final class MultipartService: Sendable {
    let prefix: String
    let presign: PresignService
    let images: ImagesService
    let storage: S3Client
    let completeStorage: S3Client
    let ownership: ImageKeyOwnership
    let intents: any IntentSink
    let gate: Gate
    let env: AppEnvironment
    let defaultType: String
    let expires: Int
    let paramsMethod: UppyConfig.ParamsMethod
    let uploadLifetimeMs: Int64
    let maxJsonBodyBytes: Int
    let completeMaxBodyBytes: Int
    /// Uploads whose owner is known here: their part URLs are signed on the event loop.
    let owners = UploadOwnerCache()

    /// The service; `completeStorage` is the same store with `uppy.completeTimeoutMs` as its timeout.
    init(
        config: PresigndConfig, presign: PresignService, images: ImagesService, storage: S3Client,
        completeStorage: S3Client, ownership: ImageKeyOwnership, intents: any IntentSink, gate: Gate,
        env: AppEnvironment
    ) {
        let u = config.uppy
        self.prefix = u.prefix
        self.presign = presign
        self.images = images
        self.storage = storage
        self.completeStorage = completeStorage
        self.ownership = ownership
        self.intents = intents
        self.gate = gate
        self.env = env
        self.defaultType = u.defaultType
        self.expires = u.urlExpiresSeconds
        self.paramsMethod = u.paramsMethod
        self.uploadLifetimeMs = Int64(u.abortAfterSeconds) * 1000
        self.maxJsonBodyBytes = config.server.maxJsonBodyBytes
        self.completeMaxBodyBytes = u.completeMaxBodyBytes
    }

    /// The pair key an upload's intent is recorded under.
    static func pairKey(key: String, uploadId: String) -> String { key + "#" + uploadId }

    /// The routes. Creating and `params` count as issuing; the rest (one part URL per part) count
    /// against the confirm limits, which are higher.
    func routes() -> [Route] {
        let p = prefix
        let create = route(
            .issue, validate: { [self] (c, r) throws(CompanionError) in try createRequest(r, caller: c) },
            perform: { [self] (c, w) throws(CompanionError) in try self.create(w, caller: c) })
        let batch = route(
            .confirm, validate: { (_, r) throws(CompanionError) in try MultipartService.batchRequest(r) },
            perform: { [self] (c, w) throws(CompanionError) in try signBatch(w, caller: c) })
        let complete = route(
            .confirm, validate: { [self] (_, r) throws(CompanionError) in try completeRequest(r) },
            perform: { [self] (c, w) throws(CompanionError) in try self.complete(w, caller: c) })
        // A part URL of an upload whose owner is known here is signed on the loop (pure computation);
        // otherwise the store is asked on a worker.
        let part = gate.route(
            .confirm,
            decide: { [self] (c, r) throws(APIError) -> Gate.Step<PartRequest> in
                do throws(CompanionError) {
                    let p = try MultipartService.partRequest(r)
                    guard owners.owns(p.ref, ownerId: c.userId, nowMs: env.nowMillis()) else {
                        return .later(p)
                    }
                    return .now(try partAnswer(p))
                } catch {
                    return .now(error.response)
                }
            },
            perform: { [self] c, p in
                do throws(CompanionError) {
                    return try signPart(p, caller: c)
                } catch {
                    return error.response
                }
            })
        let list = route(
            .confirm, validate: { (_, r) throws(CompanionError) in try MultipartService.uploadRef(r) },
            perform: { [self] (c, w) throws(CompanionError) in try listParts(w, caller: c) })
        let abort = route(
            .confirm, validate: { (_, r) throws(CompanionError) in try MultipartService.uploadRef(r) },
            perform: { [self] (c, w) throws(CompanionError) in try self.abort(w, caller: c) })
        let params = gate.route(.issue) { [self] (caller, request) throws(APIError) in
            do throws(CompanionError) {
                return try self.params(request, caller: caller)
            } catch {
                return error.response
            }
        }
        // The batch and complete templates come before `{partNumber}`: the router takes the first
        // template that matches.
        return [
            Route(.POST, p + "/multipart", maxBodyBytes: maxJsonBodyBytes, handler: create),
            Route(.GET, p + "/multipart/{uploadId}/batch", handler: batch),
            Route(.POST, p + "/multipart/{uploadId}/complete", maxBodyBytes: completeMaxBodyBytes, handler: complete),
            Route(.GET, p + "/multipart/{uploadId}/{partNumber}", handler: part),
            Route(.GET, p + "/multipart/{uploadId}", handler: list),
            Route(.DELETE, p + "/multipart/{uploadId}", handler: abort),
            Route(.GET, p + "/params", handler: params),
        ]
    }

    /// Checked work, or the refusal to answer instead (carried to the worker: the gate's validate
    /// step throws only `APIError`s, and these answers have Companion's shape).
    enum Checked<Work: Sendable>: Sendable {
        case work(Work)
        case refused(CompanionError)
    }

    /// A gate route whose checks and work answer in Companion's shape.
    private func route<Work: Sendable>(
        _ scope: Gate.Scope, validate: @escaping @Sendable (Caller, Request) throws(CompanionError) -> Work,
        perform: @escaping @Sendable (Caller, Work) throws(CompanionError) -> Response
    ) -> Handler {
        gate.route(
            scope,
            validate: { (caller, request) throws(APIError) -> Checked<Work> in
                do throws(CompanionError) {
                    return .work(try validate(caller, request))
                } catch {
                    return .refused(error)
                }
            },
            perform: { caller, checked in
                switch checked {
                case .refused(let refusal): return refusal.response
                case .work(let work):
                    do throws(CompanionError) {
                        return try perform(caller, work)
                    } catch {
                        return error.response
                    }
                }
            })
    }

    // MARK: - Upload references

    /// `{uploadId}` and `?key=` of a request.
    struct UploadRef: Sendable {
        let uploadId: String
        let key: String
        var pairKey: String { MultipartService.pairKey(key: key, uploadId: uploadId) }
    }

    /// The upload a request names: the path's upload ID (1...1024 printable ASCII bytes) and the
    /// `key` query parameter (a safe key).
    static func uploadRef(_ request: Request) throws(CompanionError) -> UploadRef {
        guard let uploadId = request.parameter("uploadId"), MultipartRules.isUploadId(uploadId) else {
            throw .badRequest("s3: the upload ID is malformed")
        }
        var key: String?
        guard request.forEachQueryItem({ n, v in if n == "key" { key = v } }) else {
            throw .badRequest("s3: the query string is not valid percent-encoded UTF-8")
        }
        guard let key, !key.isEmpty else { throw .missingKey }
        // A key presignd did not make cannot be an upload it issued.
        guard KeyTemplate.isSafeKey(key) else { throw .noSuchUpload }
        return UploadRef(uploadId: uploadId, key: key)
    }

    /// The intent of the caller's upload `ref`, else `NO_SUCH_UPLOAD` (never issued, another
    /// caller's, or expired). Only the intent is read (the writer's queue, then the store), not the
    /// records: a completed upload is gone from storage, so its part URLs, listing and abort are
    /// answered `NO_SUCH_UPLOAD` by storage anyway, and part signing (one request per part) stays
    /// one lookup.
    func ownedIntent(_ ref: UploadRef, caller: Caller) throws(CompanionError) -> UploadIntent {
        let found: UploadIntent?
        do {
            found = try ownership.intents.intent(imageKey: ref.pairKey)
        } catch {
            throw CompanionError(APIError.storeUnavailable)
        }
        guard let intent = found, intent.ownerId == caller.userId, intent.expiresAtMs > env.nowMillis() else {
            throw .noSuchUpload
        }
        owners.remember(ref, ownerId: intent.ownerId, expiresAtMs: intent.expiresAtMs)
        return intent
    }

    /// A store failure as the answer: `NoSuchUpload` as `NO_SUCH_UPLOAD`, the other multipart
    /// refusals as 400, anything else as the house maps storage failures (502/503/504).
    static func storageRefusal(_ error: ObjectStoreError) -> CompanionError {
        switch error {
        case .multipart(.noSuchUpload): return .noSuchUpload
        case .multipart(let refusal):
            return CompanionError(
                400, "S3_" + refusal.rawValue.uppercased(), "s3: storage refused: \(refusal.rawValue)")
        default: return CompanionError(APIError.storage(error))
        }
    }

    // MARK: - POST /s3/multipart

    /// A checked creation: where the object goes and what it must be.
    struct Creation: Sendable {
        let type: PresignService.UploadType
        let key: String
        let permanentKey: String?
        let contentType: String
        /// What the record keeps of the metadata (`MultipartRules.Metadata.recordJSON`), carried by the intent.
        let metadataJSON: String?
    }

    /// The upload type, key and content type of a new upload from `filename`, `type` and `metadata`
    /// (`metadata.uploadType` picks the type, `metadata.chatroomId` fills `{chatroomId}`; the record
    /// keeps the metadata but `uploadType`).
    func newObject(filename: String?, contentType: String?, metadata: MultipartRules.Metadata, caller: Caller)
        throws(CompanionError) -> Creation
    {
        guard let filename, !filename.isEmpty else { throw .badRequest("s3: the filename must be a non-empty string") }
        guard let contentType, let media = RequestValidation.mediaType(contentType) else {
            throw .badRequest("s3: content type must be a string")
        }
        let typeName = metadata.value("uploadType") ?? defaultType
        guard let type = presign.uploadType(named: typeName) else {
            throw .badRequest("s3: unknown upload type \(typeName)")
        }
        guard type.config.contentTypes.contains(media) else {
            throw .badRequest(
                "s3: content type must be one of " + type.config.contentTypes.joined(separator: ", ")
                    + " for type \(typeName)")
        }
        let chatroomId = metadata.value("chatroomId")
        if let chatroomId, !RequestValidation.isNumericId(chatroomId) {
            throw .badRequest("s3: metadata.chatroomId must be a number")
        }
        if type.config.requiresChatroomId && chatroomId == nil {
            throw .badRequest("s3: metadata.chatroomId is required for type \(typeName)")
        }
        let uuid = env.newUUID()
        let values = KeyTemplate.Values(
            userId: caller.userId, uuid: uuid, epochMillis: env.nowMillis(), ext: PresignService.extensionFor(media),
            chatroomId: chatroomId, imageKey: uuid, filename: MultipartRules.slug(filename))
        guard let key = type.key.render(values) else {
            throw .badRequest("s3: the key for type \(typeName) cannot be built from these values")
        }
        return Creation(
            type: type, key: key, permanentKey: type.permanentKey?.render(values), contentType: media,
            metadataJSON: metadata.recordJSON)
    }

    /// Checks a creation body on the event loop.
    func createRequest(_ request: Request, caller: Caller) throws(CompanionError) -> Creation {
        let body: JSONObject
        do throws(APIError) {
            body = try RequestValidation.jsonObject(request, maxDepth: 8, maxBytes: maxJsonBodyBytes)
        } catch {
            throw CompanionError(error)
        }
        let metadata: MultipartRules.Metadata
        switch MultipartRules.metadata(member: body["metadata"]) {
        case .success(let m): metadata = m
        case .failure(let refusal): throw refusal
        }
        return try newObject(
            filename: body["filename"]?.stringValue, contentType: body["type"]?.stringValue, metadata: metadata,
            caller: caller)
    }

    /// On a worker: CreateMultipartUpload, then the intent (when it cannot be kept, the upload is
    /// aborted and the answer is 503).
    func create(_ c: Creation, caller: Caller) throws(CompanionError) -> Response {
        let uploadId: String
        do throws(ObjectStoreError) {
            uploadId = try storage.createMultipartUpload(key: c.key, contentType: c.contentType)
        } catch {
            throw MultipartService.storageRefusal(error)
        }
        let now = env.nowMillis()
        let kept = intents.enqueue(
            UploadIntent(
                ownerId: caller.userId, imageKey: MultipartService.pairKey(key: c.key, uploadId: uploadId),
                objectKey: c.key, permanentKey: c.permanentKey, type: c.type.config.name, contentType: c.contentType,
                allowedContentTypes: [c.contentType], maxBytes: c.type.config.maxBytes, createdAtMs: now,
                expiresAtMs: now + uploadLifetimeMs, metadataJSON: c.metadataJSON))
        guard kept else {
            try? storage.abortMultipartUpload(key: c.key, uploadId: uploadId)
            throw CompanionError(APIError.intentsBacklogged)
        }
        owners.remember(
            key: c.key, uploadId: uploadId, ownerId: caller.userId, expiresAtMs: now + uploadLifetimeMs)
        var w = JSONWriter(reservingCapacity: 128 + c.key.utf8.count + uploadId.utf8.count)
        w.beginObject()
        w.key("key")
        w.string(c.key)
        w.key("uploadId")
        w.string(uploadId)
        w.key("bucket")
        w.string(presign.bucket)
        w.endObject()
        return .companion(w.bytes)
    }

    // MARK: - GET /s3/multipart/{uploadId}/{partNumber}, …/batch

    /// One part to sign.
    struct PartRequest: Sendable {
        let ref: UploadRef
        let partNumber: Int
    }

    static func partRequest(_ request: Request) throws(CompanionError) -> PartRequest {
        let ref = try uploadRef(request)
        guard let text = request.parameter("partNumber"), let n = MultipartRules.partNumber(Substring(text)) else {
            throw .badPartNumber
        }
        return PartRequest(ref: ref, partNumber: n)
    }

    /// Parts to sign.
    struct BatchRequest: Sendable {
        let ref: UploadRef
        let partNumbers: [Int]
    }

    static func batchRequest(_ request: Request) throws(CompanionError) -> BatchRequest {
        let ref = try uploadRef(request)
        var list: String?
        _ = request.forEachQueryItem { n, v in if n == "partNumbers" { list = v } }
        guard let list else {
            throw .badRequest(
                "s3: the part numbers must be passed as a comma separated query parameter. For example: \"?partNumbers=4,6,7,21\""
            )
        }
        guard let numbers = MultipartRules.partNumberList(list) else {
            throw .badRequest(
                "s3: the part numbers must be distinct numbers between 1 and 10000, at most \(MultipartRules.maxBatch)")
        }
        return BatchRequest(ref: ref, partNumbers: numbers)
    }

    /// The presigned UploadPart URL of one part (signed as `PresignService` signs client B's URLs).
    private func partURL(_ ref: UploadRef, _ n: Int, now: Int64) throws(CompanionError) -> String {
        do {
            return try presign.configured.presignUploadPart(
                bucket: presign.bucket, key: ref.key, uploadId: ref.uploadId, partNumber: n, expires: expires,
                now: now / 1000
            ).url
        } catch {
            if case .credentialsExpiring(let left) = error {
                throw CompanionError(APIError.credentialsUnavailable(secondsLeft: left))
            }
            throw CompanionError(APIError.signingFailed)
        }
    }

    /// On a worker (the intent may have to be read from the store): `{url, expires}`.
    func signPart(_ p: PartRequest, caller: Caller) throws(CompanionError) -> Response {
        _ = try ownedIntent(p.ref, caller: caller)
        return try partAnswer(p)
    }

    /// `{"url":…,"expires":…}` of one part, for an upload whose owner was checked (written by
    /// fragments into one buffer sized in advance, as the issue route's answer is).
    func partAnswer(_ p: PartRequest) throws(CompanionError) -> Response {
        let url = try partURL(p.ref, p.partNumber, now: env.nowMillis())
        var body: [UInt8] = []
        body.reserveCapacity(url.utf8.count + 48)
        JSONWriter.appendLiteral(#"{"url":"#, to: &body)
        JSONWriter.appendQuoted(url, to: &body)
        JSONWriter.appendLiteral(#","expires":"#, to: &body)
        JSONWriter.appendDecimal(Int64(expires), to: &body)
        body.append(UInt8(ascii: "}"))
        return .companion(body)
    }

    /// On a worker: `{presignedUrls: {"n": url, …}}` in the order asked.
    func signBatch(_ b: BatchRequest, caller: Caller) throws(CompanionError) -> Response {
        _ = try ownedIntent(b.ref, caller: caller)
        let now = env.nowMillis()
        var w = JSONWriter(reservingCapacity: 64 + b.partNumbers.count * (600 + b.ref.key.utf8.count))
        w.beginObject()
        w.key("presignedUrls")
        w.beginObject()
        for n in b.partNumbers {
            w.key(String(n))
            w.string(try partURL(b.ref, n, now: now))
        }
        w.endObject()
        w.endObject()
        return .companion(w.bytes)
    }

    // MARK: - GET /s3/multipart/{uploadId}, DELETE /s3/multipart/{uploadId}

    /// On a worker: every part uploaded so far (ListParts, every page).
    func listParts(_ ref: UploadRef, caller: Caller) throws(CompanionError) -> Response {
        _ = try ownedIntent(ref, caller: caller)
        let parts: [UploadedPart]
        do throws(ObjectStoreError) {
            parts = try storage.listParts(key: ref.key, uploadId: ref.uploadId)
        } catch {
            throw MultipartService.storageRefusal(error)
        }
        var w = JSONWriter(reservingCapacity: 32 + parts.count * 120)
        w.beginArray()
        for part in parts {
            w.beginObject()
            w.key("PartNumber")
            w.int(part.partNumber)
            w.key("ETag")
            w.string(part.etag)
            w.key("Size")
            w.int(part.size)
            w.key("LastModified")
            w.string(Timestamp.iso8601Millis(part.lastModified * 1000))
            w.endObject()
        }
        w.endArray()
        return .companion(w.bytes)
    }

    /// On a worker: AbortMultipartUpload; `{}` with 200 (Uppy parses every answer as JSON).
    func abort(_ ref: UploadRef, caller: Caller) throws(CompanionError) -> Response {
        _ = try ownedIntent(ref, caller: caller)
        owners.forget(ref)
        do throws(ObjectStoreError) {
            try storage.abortMultipartUpload(key: ref.key, uploadId: ref.uploadId)
        } catch {
            throw MultipartService.storageRefusal(error)
        }
        return .companion(Array("{}".utf8))
    }
}

extension Application {
    /// The storage client of CompleteMultipartUpload: the server's own, with `uppy.completeTimeoutMs`.
    static func makeCompleteStorage(_ config: PresigndConfig, signers: Signers, env: AppEnvironment) -> S3Client {
        var s3 = config.s3
        s3.requestTimeoutMs = max(s3.requestTimeoutMs, config.uppy.completeTimeoutMs)
        return makeStorage(s3, signers: signers, env: env)
    }
}
