import Config
import HTTPServer
import JSON
import Records
import Uploads

/// The native multipart API for apps (`multipart.enabled`): large files from phones, whose background
/// sessions need every part URL up front and may never run again after the last part. A thin front
/// door over `Uploads.NativeUploads`, in the house's error shape:
///
/// | route | answer |
/// |---|---|
/// | `POST /uploads` `{type, contentType, filename?, size, checksumSHA256?, partSize?}` | 201 `{uploadId, key, partSize, parts: [{partNumber, url, size}], expiresAt}` |
/// | `GET /uploads/{uploadId}` | `{state, receivedBytes, contiguousBytes, missingParts, reason?, record?}` |
/// | `POST /uploads/{uploadId}/sign` `{parts: [n…]}` or `{missing: true}` | `{parts: [{partNumber, url, size}], expiresAt}` |
/// | `POST /uploads/{uploadId}/complete` | `{state: "completed", record}` |
/// | `DELETE /uploads/{uploadId}` | `{state: "aborted"}` |
///
/// An upload storage no longer knows (or another owner's, or never issued) is 404 `NO_SUCH_UPLOAD`,
/// whose message tells the client to start a new upload. Requests are read on the event loop; storage
/// and the records store are called on the worker pool.
final class UploadsService: Sendable {
    let native: NativeUploads
    let issuer: Issuer
    let records: UploadRecords
    let gate: Gate
    let defaultType: String
    let maxJsonBodyBytes: Int

    /// The routes over `native` and the rest of `uploads`, admitted by `gate`.
    init(config: PresigndConfig, uploads: UploadLifecycle, native: NativeUploads, gate: Gate) {
        self.native = native
        self.issuer = uploads.issuer
        self.records = uploads.records
        self.gate = gate
        self.defaultType = config.uppy.defaultType
        self.maxJsonBodyBytes = config.server.maxJsonBodyBytes
    }

    /// The five routes: creation counts against the issue limits, the others against the confirm ones.
    func routes() -> [Route] {
        let group = gate.house
        let create = group.route(
            .issue, validate: { [self] (c, r) throws(APIError) in try creation(r, caller: c) },
            perform: { [self] (c, w) throws(APIError) in try self.create(w, caller: c) })
        let status = group.route(
            .confirm, validate: { (_, r) throws(APIError) in try UploadsService.uploadId(r) },
            perform: { [self] (c, id) throws(APIError) in try self.status(id, caller: c) })
        let sign = group.route(
            .confirm, validate: { [self] (_, r) throws(APIError) in try signing(r) },
            perform: { [self] (c, s) throws(APIError) in try self.sign(s, caller: c) })
        let complete = group.route(
            .confirm, validate: { (_, r) throws(APIError) in try UploadsService.uploadId(r) },
            perform: { [self] (c, id) throws(APIError) in try self.complete(id, caller: c) })
        let abort = group.route(
            .unlimited, validate: { (_, r) throws(APIError) in try UploadsService.uploadId(r) },
            perform: { [self] (c, id) throws(APIError) in try self.abort(id, caller: c) })
        return [
            Route(.POST, "/uploads", maxBodyBytes: maxJsonBodyBytes, handler: create),
            Route(.POST, "/uploads/{uploadId}/sign", maxBodyBytes: maxJsonBodyBytes, handler: sign),
            Route(.POST, "/uploads/{uploadId}/complete", maxBodyBytes: maxJsonBodyBytes, handler: complete),
            Route(.GET, "/uploads/{uploadId}", handler: status),
            Route(.DELETE, "/uploads/{uploadId}", handler: abort),
        ]
    }

    /// `body`, with a lifecycle failure as the house answers it (a rejected request's problems as
    /// field errors: a malformed declared checksum, a size over the type's limit).
    func lifecycle<T>(_ body: () throws(UploadError) -> T) throws(APIError) -> T {
        do {
            return try body()
        } catch {
            throw APIError(error)
        }
    }

    /// The path's upload id (1...1024 printable ASCII bytes); any other is an upload never issued.
    static func uploadId(_ request: Request) throws(APIError) -> String {
        guard let id = request.parameter("uploadId"), UploadIdText.isValid(id) else {
            throw .upload(.noSuchUpload)
        }
        return id
    }

    // MARK: - POST /uploads

    /// A checked creation: the object planned and how it is cut.
    struct Creation: Sendable {
        let object: PlannedObject
        let size: Int64
        let partSize: Int64
    }

    /// Reads and checks a creation body on the event loop: the size (1 byte to 5 TiB), the part size
    /// (asked for or chosen), the type's rules (its limit, its content types, the declared checksum).
    func creation(_ request: Request, caller: Caller) throws(APIError) -> Creation {
        let body = try RequestValidation.jsonObject(request, maxDepth: 8, maxBytes: maxJsonBodyBytes)
        var errors = FieldErrors()
        var declared = DeclaredFields.read(body, errors: &errors)
        var size: Int64?
        switch body["size"] {
        case .number(let n)? where n.isInteger && (n.int64 ?? 0) >= 1 && (n.int64 ?? 0) <= PartPlan.maxObjectBytes:
            size = n.int64
        case nil, .null?: errors.add("size", "size is required: the file's size in bytes")
        default: errors.add("size", "size must be a whole number of bytes from 1 to 5 TiB (5497558138880)")
        }
        var requested: Int64?
        switch body["partSize"] {
        case nil, .null?: break
        case .number(let n)? where n.isInteger && n.int64 != nil: requested = n.int64
        default: errors.add("partSize", "partSize must be a whole number of bytes from 5 MiB to 5 GiB")
        }
        let contentType = body["contentType"]?.stringValue
        let media = contentType.flatMap(UploadRules.mediaType)
        if media == nil { errors.add("contentType", "contentType is required: the file's media type") }
        let typeName: String
        switch body["type"] {
        case nil, .null?: typeName = defaultType
        case .string(let s)?: typeName = s
        default:
            typeName = defaultType
            errors.add("type", "type must be the name of an upload type")
        }
        var filename = "upload"
        if let f = body["filename"], !f.isNull {
            if let s = f.stringValue, !s.isEmpty {
                filename = s
            } else {
                errors.add("filename", "filename must be a string")
            }
        }
        var partSize: Int64 = 0
        if let size {
            do throws(PartPlan.Problem) {
                partSize = try PartPlan.partSize(size: size, requested: requested, maxParts: native.maxParts)
            } catch {
                switch error {
                case .size: errors.add("size", "size must be a whole number of bytes from 1 to 5 TiB")
                case .partSize: errors.add("partSize", "partSize must be from 5 MiB to 5 GiB")
                case .tooManyParts(let count, let maxParts):
                    errors.add("partSize", "\(count) parts is over the \(maxParts) an upload may have")
                }
            }
        }
        guard errors.isEmpty, let size, let media else { throw .validation(errors) }
        declared.size = .bytes(size)
        let object = try lifecycle { () throws(UploadError) in
            try issuer.plan(
                ObjectRequest(
                    filename: filename, mediaType: media, typeName: typeName, chatroomId: nil, metadataJSON: nil,
                    declared: declared),
                owner: caller.userId)
        }
        return Creation(object: object, size: size, partSize: partSize)
    }

    /// On a worker: the upload created, every part signed: 201.
    func create(_ c: Creation, caller: Caller) throws(APIError) -> Response {
        let created = try lifecycle { () throws(UploadError) in
            try native.create(c.object, size: c.size, partSize: c.partSize, owner: caller.userId)
        }
        var w = JSONWriter(reservingCapacity: 256 + created.signed.parts.count * 700)
        w.beginObject()
        w.key("uploadId")
        w.string(created.entry.uploadId)
        w.key("key")
        w.string(created.entry.objectKey)
        w.key("size")
        w.int(created.entry.size)
        w.key("partSize")
        w.int(created.entry.partSize)
        writeSigned(created.signed, to: &w)
        w.endObject()
        return .json(201, w.bytes, extraHeaders: [("Cache-Control", "no-store")])
    }

    /// `"parts": [...], "expiresAt": "…"` of `signed`.
    func writeSigned(_ signed: NativeUploads.Signed, to w: inout JSONWriter) {
        w.key("parts")
        w.beginArray()
        for p in signed.parts {
            w.beginObject()
            w.key("partNumber")
            w.int(p.partNumber)
            w.key("url")
            w.string(p.url)
            w.key("size")
            w.int(p.size)
            w.endObject()
        }
        w.endArray()
        w.key("expiresAt")
        w.string(Timestamp.iso8601Millis(signed.expiresAt * 1000))
    }

    // MARK: - GET /uploads/{uploadId}

    /// On a worker: where the upload is.
    func status(_ id: String, caller: Caller) throws(APIError) -> Response {
        let s = try lifecycle { () throws(UploadError) in try native.status(id, owner: caller.userId) }
        var w = JSONWriter(reservingCapacity: 1024 + s.missingParts.count * 6)
        w.beginObject()
        w.key("uploadId")
        w.string(s.entry.uploadId)
        w.key("key")
        w.string(s.entry.objectKey)
        w.key("state")
        w.string(s.state)
        w.key("size")
        w.int(s.entry.size)
        w.key("partSize")
        w.int(s.entry.partSize)
        w.key("receivedBytes")
        w.int(s.receivedBytes)
        w.key("contiguousBytes")
        w.int(s.contiguousBytes)
        w.key("missingParts")
        w.beginArray()
        for n in s.missingParts { w.int(n) }
        w.endArray()
        if let reason = s.reason {
            w.key("reason")
            w.string(reason)
        }
        if let record = s.record {
            w.key("record")
            RecordJSON.write(record, readURL: records.url(for: record), to: &w)
        }
        w.endObject()
        return .json(200, w.bytes, extraHeaders: [("Cache-Control", "no-store")])
    }

    // MARK: - POST /uploads/{uploadId}/sign

    /// Parts to sign: the numbers, or nil for the missing ones.
    struct Signing: Sendable {
        let uploadId: String
        let numbers: [Int]?
    }

    /// Reads a signing body on the event loop: `{"parts": [n…]}` (1 to 10,000 numbers, each 1...10,000)
    /// or `{"missing": true}`.
    func signing(_ request: Request) throws(APIError) -> Signing {
        let id = try UploadsService.uploadId(request)
        let body = try RequestValidation.jsonObject(request, maxDepth: 4, maxBytes: maxJsonBodyBytes)
        var errors = FieldErrors()
        if body["missing"]?.boolValue == true, body["parts"] == nil { return Signing(uploadId: id, numbers: nil) }
        guard let list = body["parts"]?.arrayValue, !list.isEmpty, list.count <= PartRules.partNumbers.upperBound else {
            errors.add("parts", "parts must list 1 to 10000 part numbers, or send {\"missing\": true}")
            throw .validation(errors)
        }
        var numbers: [Int] = []
        numbers.reserveCapacity(list.count)
        for v in list {
            guard let n = v.intValue, PartRules.partNumbers.contains(n) else {
                errors.add("parts", "every part number must be a whole number from 1 to 10000")
                throw .validation(errors)
            }
            numbers.append(n)
        }
        return Signing(uploadId: id, numbers: numbers)
    }

    /// On a worker: fresh URLs.
    func sign(_ s: Signing, caller: Caller) throws(APIError) -> Response {
        let signed = try lifecycle { () throws(UploadError) in
            try native.sign(s.uploadId, numbers: s.numbers, owner: caller.userId)
        }
        var w = JSONWriter(reservingCapacity: 128 + signed.parts.count * 700)
        w.beginObject()
        writeSigned(signed, to: &w)
        w.endObject()
        return .json(200, w.bytes, extraHeaders: [("Cache-Control", "no-store")])
    }

    // MARK: - POST /uploads/{uploadId}/complete, DELETE /uploads/{uploadId}

    /// On a worker: the upload completed and recorded: `{state, record}`.
    func complete(_ id: String, caller: Caller) throws(APIError) -> Response {
        let done = try lifecycle { () throws(UploadError) in try native.complete(id, owner: caller.userId) }
        var w = JSONWriter(reservingCapacity: 1024)
        w.beginObject()
        w.key("uploadId")
        w.string(id)
        w.key("state")
        w.string("completed")
        w.key("record")
        RecordJSON.write(
            done.record, readURL: records.url(for: done.record), deduplicated: done.deduplicated, to: &w)
        w.endObject()
        return .json(200, w.bytes, extraHeaders: [("Cache-Control", "no-store")])
    }

    /// On a worker: the upload aborted (again: the same answer).
    func abort(_ id: String, caller: Caller) throws(APIError) -> Response {
        try lifecycle { () throws(UploadError) in try native.abort(id, owner: caller.userId) }
        var w = JSONWriter(reservingCapacity: 64 + id.utf8.count)
        w.beginObject()
        w.key("uploadId")
        w.string(id)
        w.key("state")
        w.string("aborted")
        w.endObject()
        return .json(200, w.bytes)
    }
}
