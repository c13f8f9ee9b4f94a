import Config
import HTTPServer
import JSON
import Records
import Uploads

/// The native records routes: `POST /images` confirms, `GET /images/{id}`, `GET /images` and
/// `DELETE /images/{id}` read and remove the caller's own; a thin front door over `Uploads.Confirmer`
/// and `Uploads.UploadRecords`. Each handler checks the request on the event loop and does its work on
/// the worker pool (storage calls, database commits); a 201 is sent only after its record is durable.
/// Responses are written in `ImagesService+Rendering.swift`.
final class ImagesService: Sendable {
    /// Confirming.
    let confirmer: Confirmer
    /// The records and their read URLs.
    let records: UploadRecords
    private let catalog: UploadCatalog
    private let gate: Gate
    /// The largest JSON body a route reads.
    let maxJsonBodyBytes: Int

    /// The routes of `config` over the lifecycle's `confirmer`, `records` and `catalog`, admitted by `gate`.
    init(config: PresigndConfig, confirmer: Confirmer, records: UploadRecords, catalog: UploadCatalog, gate: Gate) {
        self.confirmer = confirmer
        self.records = records
        self.catalog = catalog
        self.gate = gate
        self.maxJsonBodyBytes = config.server.maxJsonBodyBytes
    }

    /// The four records routes and the three read-URL routes (`+ReadURLs`), each behind the gate's
    /// confirm limits.
    func routes() -> [Route] {
        let group = gate.house
        let confirmRoute = group.route(
            .confirm, validate: { [self] (_, request) throws(APIError) in try confirmation(request) },
            perform: { [self] (caller, c) throws(APIError) in try confirm(c, caller: caller) })
        let listRoute = group.route(
            .confirm, validate: { [self] (_, request) throws(APIError) in try listing(request) },
            perform: { [self] (caller, l) throws(APIError) in try list(l, caller: caller) })
        let readRoute = group.route(
            .confirm, validate: { (_, request) throws(APIError) in try ImagesService.recordId(request) },
            perform: { [self] (caller, id) throws(APIError) in try read(id, caller: caller) })
        let removeRoute = group.route(
            .confirm, validate: { (_, request) throws(APIError) in try ImagesService.recordId(request) },
            perform: { [self] (caller, id) throws(APIError) in try remove(id, caller: caller) })
        return [
            Route(.POST, "/images", maxBodyBytes: maxJsonBodyBytes, handler: confirmRoute),
            Route(.GET, "/images", handler: listRoute),
            Route(.GET, "/images/{id}", handler: readRoute),
            Route(.DELETE, "/images/{id}", handler: removeRoute),
        ] + readURLRoutes(group)
    }

    // MARK: - POST /images

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
                if metadata.count > UploadRules.maxMetadataBytes {
                    errors.add("metadata", "metadata must be at most \(UploadRules.maxMetadataBytes) bytes")
                }
            } else {
                errors.add("metadata", "metadata must be a JSON object")
            }
        }
        guard errors.isEmpty, let imageKey else { throw .validation(errors) }
        return Confirmation(imageKey: imageKey, metadataJSON: String(decoding: metadata, as: UTF8.self))
    }

    /// On a worker: the caller's record of the key (200 when it exists, 201 when made now, 202 while it is
    /// `scanning` (docs/scanning.md); 200 with
    /// `"deduplicated": true` when the type deduplicates and the caller has these bytes recorded), after
    /// storage shows the object within the intent's limits (and its bytes the declared ones) and, for a
    /// type with a permanent key, after the object is promoted there (`Confirmer.confirm`).
    func confirm(_ c: Confirmation, caller: Caller) throws(APIError) -> Response {
        do throws(UploadError) {
            let confirmed = try confirmer.confirm(c, owner: caller.userId)
            // A record of a type that scans is accepted, not published yet: 202 until its scan settles it.
            let status = confirmed.record.state == .scanning ? 202 : confirmed.created ? 201 : 200
            return recordResponse(confirmed.record, status: status, deduplicated: confirmed.deduplicated)
        } catch {
            throw APIError(error)
        }
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
        /// Only records whose SHA-256 is this (base64 of 32 bytes), when given.
        var sha256: String? = nil
    }

    /// Checks the query of `GET /images` on the event loop.
    func listing(_ req: Request) throws(APIError) -> Listing {
        guard let items = req.queryItems() else { throw .malformedQuery }
        var type: String?
        var limit = 20
        var cursor: RecordCursor?
        var sha256: String?
        var errors = FieldErrors()
        for (name, value) in items {
            switch name {
            case "type":
                if catalog.knows(value) { type = value } else { errors.add("type", "unknown type") }
            case "limit":
                if RequestValidation.isNumericId(value), let n = Int(value), (1...100).contains(n) {
                    limit = n
                } else {
                    errors.add("limit", "limit must be 1...100")
                }
            case "cursor":
                if let c = RecordCursor(token: value) { cursor = c } else { errors.add("cursor", "invalid cursor") }
            case "sha256":
                if let reason = DeclaredDigest.sha256.problem(with: value) {
                    errors.add("sha256", "sha256 must be the base64 of a SHA-256 digest (32 bytes): \(reason)")
                } else {
                    sha256 = value
                }
            default: continue
            }
        }
        guard errors.isEmpty else { throw .validation(errors) }
        return Listing(type: type, limit: limit, cursor: cursor, sha256: sha256)
    }

    /// On a worker: one page of the caller's records (those with the SHA-256 asked for, when asked).
    func list(_ l: Listing, caller: Caller) throws(APIError) -> Response {
        do throws(UploadError) {
            if let sha256 = l.sha256 {
                let page = try records.page(
                    owner: caller.userId, sha256: sha256, type: l.type, limit: l.limit, after: l.cursor)
                return pageResponse(page)
            }
            return pageResponse(try records.page(owner: caller.userId, type: l.type, limit: l.limit, after: l.cursor))
        } catch {
            throw APIError(error)
        }
    }

    /// The record id of `GET` and `DELETE /images/{id}`; a malformed one is a record that does not exist.
    static func recordId(_ req: Request) throws(APIError) -> String {
        guard let id = req.parameter("id").flatMap(RequestValidation.canonicalUUID) else {
            throw .upload(.recordNotFound)
        }
        return id
    }

    /// On a worker: the caller's record with `id`, else 404.
    func read(_ id: String, caller: Caller) throws(APIError) -> Response {
        do throws(UploadError) {
            return recordResponse(try records.record(id: id, owner: caller.userId), status: 200)
        } catch {
            throw APIError(error)
        }
    }

    /// On a worker: deletes the object, then the record (a record never points at a deleted object).
    func remove(_ id: String, caller: Caller) throws(APIError) -> Response {
        do throws(UploadError) {
            try records.remove(id: id, owner: caller.userId)
            return Response(status: 204)
        } catch {
            throw APIError(error)
        }
    }
}
