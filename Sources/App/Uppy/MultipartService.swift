import Config
import HTTPServer
import JSON
import ObjectStore
import Records
import Uploads

/// Uppy Companion's S3 routes under `uppy.prefix` (default `/s3`), so a page using `@uppy/aws-s3`
/// with `endpoint` set to presignd works unchanged; a thin front door over `Uploads.MultipartUploads`
/// and `Uploads.Issuer`:
///
/// | route | answer |
/// |---|---|
/// | `POST /s3/multipart` `{filename, type, metadata[, size, checksumSHA256, contentMD5]}` | `{key, uploadId, bucket}` |
/// | `GET /s3/multipart/{uploadId}/{partNumber}?key=[&md5=]` | `{url, expires}` |
/// | `GET /s3/multipart/{uploadId}/batch?key=&partNumbers=1,2[&md5=m1,m2]` | `{presignedUrls: {"1": url, …}}` |
/// | `GET /s3/multipart/{uploadId}?key=` | `[{PartNumber, ETag, Size, LastModified}]` (every page) |
/// | `POST /s3/multipart/{uploadId}/complete?key=` `{parts}` | `{location, key, bucket, record}` |
/// | `DELETE /s3/multipart/{uploadId}?key=` | `{}` |
/// | `GET /s3/params?filename=&type=&metadata[k]=v[&size=&checksumSHA256=&contentMD5=]` | a presigned PUT or POST, `fields.key` and `fields.bucket` in both |
/// | `GET /s3/sts` | 501 `STS_NOT_SERVED` in Companion's error shape: no temporary credentials |
///
/// Requests are read on the event loop; storage and the records store are called on the worker pool.
/// `/params` and creation answer only once their intent is stored (`/params` parked without a worker,
/// creation on its worker, which also aborts the upload when the intent is not stored).
/// Every failure is a `CompanionError`, answered by the group's `UppyPresenter`.
final class MultipartService: Sendable {
    let prefix: String
    let uploads: MultipartUploads
    let issuer: Issuer
    let records: UploadRecords
    let group: RouteGroup<UppyPresenter>
    let defaultType: String
    /// The lifetime of a `/params` URL (the type's when shorter).
    let expires: Int
    let paramsForm: BrowserForm
    let maxJsonBodyBytes: Int
    let completeMaxBodyBytes: Int

    /// The routes of `config` over `multipart` and the rest of `uploads`, admitted by `gate`.
    init(config: PresigndConfig, uploads: UploadLifecycle, multipart: MultipartUploads, gate: Gate) {
        let u = config.uppy
        self.prefix = u.prefix
        self.uploads = multipart
        self.issuer = uploads.issuer
        self.records = uploads.records
        self.group = RouteGroup(gate: gate, presenter: UppyPresenter())
        self.defaultType = u.defaultType
        self.expires = u.urlExpiresSeconds
        switch u.paramsMethod {
        case .put: self.paramsForm = .put
        case .post: self.paramsForm = .post
        }
        self.maxJsonBodyBytes = config.server.maxJsonBodyBytes
        self.completeMaxBodyBytes = u.completeMaxBodyBytes
    }

    /// The routes. Every one but the abort counts against the Companion budget (`limits.uppy*`, sized
    /// for a batch of files at once: Uppy never retries a create or params); an abort is never refused
    /// for rate (a 429 would leave the upload open on storage).
    func routes() -> [Route] {
        let p = prefix
        let create = group.route(
            .uppy, validate: { [self] (c, r) throws(CompanionError) in try createRequest(r, caller: c) },
            perform: { [self] (c, w) throws(CompanionError) in try self.create(w, caller: c) })
        let batch = group.route(
            .uppy, validate: { (_, r) throws(CompanionError) in try MultipartService.batchRequest(r) },
            perform: { [self] (c, w) throws(CompanionError) in try signBatch(w, caller: c) })
        let complete = group.route(
            .uppy, validate: { [self] (_, r) throws(CompanionError) in try completeRequest(r) },
            perform: { [self] (c, w) throws(CompanionError) in try self.complete(w, caller: c) })
        // A part URL of an upload whose owner is known here is signed on the loop (pure computation);
        // otherwise the store is asked on a worker.
        let part = group.route(
            .uppy,
            decide: { [self] (c, r) throws(CompanionError) -> RouteGroup<UppyPresenter>.Step<PartRequest> in
                let p = try MultipartService.partRequest(r)
                guard uploads.knowsOwner(p.ref, owner: c.userId) else { return .later(p) }
                return .now(try partAnswer(p))
            },
            perform: { [self] (c, p) throws(CompanionError) in try signPart(p, caller: c) })
        let list = group.route(
            .uppy, validate: { (_, r) throws(CompanionError) in try MultipartService.uploadRef(r) },
            perform: { [self] (c, w) throws(CompanionError) in try listParts(w, caller: c) })
        let abort = group.route(
            .unlimited, validate: { (_, r) throws(CompanionError) in try MultipartService.uploadRef(r) },
            perform: { [self] (c, w) throws(CompanionError) in try self.abort(w, caller: c) })
        let params = group.route(
            .uppy,
            promising: { [self] (caller, request) throws(CompanionError) in try self.params(request, caller: caller) })
        // Companion's temporary credentials (STS) are not served: storage's keys never leave the server.
        let sts = group.route(.uppy) { (_, _) throws(CompanionError) -> Response in throw .stsNotServed }
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
            Route(.GET, p + "/sts", handler: sts),
        ]
    }

    /// `body`, with a lifecycle failure as `.upload`.
    func lifecycle<T>(_ body: () throws(UploadError) -> T) throws(CompanionError) -> T {
        do {
            return try body()
        } catch {
            throw .upload(error)
        }
    }

    // MARK: - Upload references

    /// The upload a request names: the path's upload ID (1...1024 printable ASCII bytes) and the
    /// `key` query parameter (a safe key).
    static func uploadRef(_ request: Request) throws(CompanionError) -> UploadRef {
        guard let uploadId = request.parameter("uploadId"), MultipartRules.isUploadId(uploadId) else {
            throw .malformedUploadId
        }
        var key: String?
        guard request.forEachQueryItem({ n, v in if n == "key" { key = v } }) else { throw .malformedQuery }
        guard let key, !key.isEmpty else { throw .missingKey }
        // A key presignd did not make cannot be an upload it issued.
        guard KeyTemplate.isSafeKey(key) else { throw .upload(.noSuchUpload) }
        return UploadRef(uploadId: uploadId, key: key)
    }

    // MARK: - POST /s3/multipart

    /// The object of a new upload from `filename`, `type` and `metadata` (`metadata.uploadType` picks
    /// the type, `metadata.chatroomId` fills `{chatroomId}`; the record keeps the metadata but
    /// `uploadType`) and what the request declared of it (a size over the type's limit is refused here,
    /// before any part), checked and placed by `Issuer.plan`.
    func newObject(
        filename: String?, contentType: String?, metadata: MultipartRules.Metadata, declared: DeclaredInput = .none,
        caller: Caller
    ) throws(CompanionError) -> PlannedObject {
        guard let filename, !filename.isEmpty else { throw .filenameMissing }
        guard let contentType, let media = UploadRules.mediaType(contentType) else { throw .contentTypeMissing }
        let request = ObjectRequest(
            filename: filename, mediaType: media, typeName: metadata.value("uploadType") ?? defaultType,
            chatroomId: metadata.value("chatroomId"), metadataJSON: metadata.recordJSON, declared: declared)
        return try lifecycle { () throws(UploadError) in try issuer.plan(request, owner: caller.userId) }
    }

    /// Reads a creation body on the event loop.
    func createRequest(_ request: Request, caller: Caller) throws(CompanionError) -> PlannedObject {
        let body: JSONObject
        do throws(APIError) {
            body = try RequestValidation.jsonObject(request, maxDepth: 8, maxBytes: maxJsonBodyBytes)
        } catch {
            throw .request(error)
        }
        let metadata: MultipartRules.Metadata
        switch MultipartRules.metadata(member: body["metadata"]) {
        case .success(let m): metadata = m
        case .failure(let refusal): throw refusal
        }
        var errors = FieldErrors()
        let declared = DeclaredFields.read(body, errors: &errors)
        guard errors.isEmpty else { throw .request(.validation(errors)) }
        return try newObject(
            filename: body["filename"]?.stringValue, contentType: body["type"]?.stringValue, metadata: metadata,
            declared: declared, caller: caller)
    }

    /// On a worker: the upload created with its intent stored (`MultipartUploads.create`): `{key, uploadId,
    /// bucket}`.
    func create(_ object: PlannedObject, caller: Caller) throws(CompanionError) -> Response {
        let ref = try lifecycle { () throws(UploadError) in try uploads.create(object, owner: caller.userId) }
        var w = JSONWriter(reservingCapacity: 128 + ref.key.utf8.count + ref.uploadId.utf8.count)
        w.beginObject()
        w.key("key")
        w.string(ref.key)
        w.key("uploadId")
        w.string(ref.uploadId)
        w.key("bucket")
        w.string(uploads.bucket)
        w.endObject()
        return .companion(w.bytes)
    }

    // MARK: - GET /s3/multipart/{uploadId}/{partNumber}, …/batch

    /// One part to sign.
    struct PartRequest: Sendable {
        let ref: UploadRef
        let partNumber: Int
        /// The part's MD5 (base64), signed as its `Content-MD5` where storage checks it.
        var md5: String? = nil
    }

    /// The upload and part number of a part URL request, and the part's `md5` when given.
    static func partRequest(_ request: Request) throws(CompanionError) -> PartRequest {
        let ref = try uploadRef(request)
        guard let text = request.parameter("partNumber"), let n = MultipartRules.partNumber(Substring(text)) else {
            throw .badPartNumber
        }
        var md5: String?
        _ = request.forEachQueryItem { name, value in if name == "md5" { md5 = value } }
        switch MultipartRules.partMD5s(md5, count: 1) {
        case .success(let list): return PartRequest(ref: ref, partNumber: n, md5: list.first)
        case .failure(let refusal): throw refusal
        }
    }

    /// Parts to sign.
    struct BatchRequest: Sendable {
        let ref: UploadRef
        let partNumbers: [Int]
        /// One MD5 per part number (signed as each part's `Content-MD5`), or none.
        var md5s: [String] = []
    }

    /// The upload and part numbers of a batch request, and the parts' `md5` list when given.
    static func batchRequest(_ request: Request) throws(CompanionError) -> BatchRequest {
        let ref = try uploadRef(request)
        var list: String?
        var md5: String?
        _ = request.forEachQueryItem { n, v in
            if n == "partNumbers" { list = v }
            if n == "md5" { md5 = v }
        }
        guard let list else { throw .missingPartNumbers }
        guard let numbers = MultipartRules.partNumberList(list) else {
            throw .badPartNumbers(maxBatch: MultipartRules.maxBatch)
        }
        switch MultipartRules.partMD5s(md5, count: numbers.count) {
        case .success(let md5s): return BatchRequest(ref: ref, partNumbers: numbers, md5s: md5s)
        case .failure(let refusal): throw refusal
        }
    }

    /// On a worker (the intent may have to be read from the store): `{url, expires}`.
    func signPart(_ p: PartRequest, caller: Caller) throws(CompanionError) -> Response {
        _ = try lifecycle { () throws(UploadError) in try uploads.owned(p.ref, owner: caller.userId) }
        return try partAnswer(p)
    }

    /// `{"url":…,"expires":…}` of one part, for an upload whose owner was checked (written by
    /// fragments into one buffer sized in advance, as the issue route's answer is).
    func partAnswer(_ p: PartRequest) throws(CompanionError) -> Response {
        let url = try lifecycle { () throws(UploadError) in try uploads.partURL(p.ref, p.partNumber, md5: p.md5) }
        var body: [UInt8] = []
        body.reserveCapacity(url.utf8.count + 48)
        JSONWriter.appendLiteral(#"{"url":"#, to: &body)
        JSONWriter.appendQuoted(url, to: &body)
        JSONWriter.appendLiteral(#","expires":"#, to: &body)
        JSONWriter.appendDecimal(Int64(uploads.partExpires), to: &body)
        body.append(UInt8(ascii: "}"))
        return .companion(body)
    }

    /// On a worker: `{presignedUrls: {"n": url, …}}` in the order asked.
    func signBatch(_ b: BatchRequest, caller: Caller) throws(CompanionError) -> Response {
        let urls = try lifecycle { () throws(UploadError) in
            try uploads.partURLs(b.ref, b.partNumbers, md5s: b.md5s, owner: caller.userId)
        }
        var w = JSONWriter(reservingCapacity: 64 + b.partNumbers.count * (600 + b.ref.key.utf8.count))
        w.beginObject()
        w.key("presignedUrls")
        w.beginObject()
        for (n, url) in zip(b.partNumbers, urls) {
            w.key(String(n))
            w.string(url)
        }
        w.endObject()
        w.endObject()
        return .companion(w.bytes)
    }

    // MARK: - GET /s3/multipart/{uploadId}, DELETE /s3/multipart/{uploadId}

    /// On a worker: every part uploaded so far (ListParts, every page).
    func listParts(_ ref: UploadRef, caller: Caller) throws(CompanionError) -> Response {
        let parts = try lifecycle { () throws(UploadError) in try uploads.listParts(ref, owner: caller.userId) }
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

    /// On a worker: AbortMultipartUpload; `{}` with 200 (Uppy parses every answer as JSON), also when
    /// the upload is already gone (completed, refused, aborted or never the caller's), as Companion
    /// answers: Uppy aborts after a refused completion and never handles a rejection of that abort.
    func abort(_ ref: UploadRef, caller: Caller) throws(CompanionError) -> Response {
        do throws(UploadError) {
            try uploads.abort(ref, owner: caller.userId)
        } catch .noSuchUpload, .storage(.multipart(.noSuchUpload)) {
            // Gone already: nothing left to abort.
        } catch {
            throw .upload(error)
        }
        return .companion(Array("{}".utf8))
    }
}
