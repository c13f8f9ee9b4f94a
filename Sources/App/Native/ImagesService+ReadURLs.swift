import HTTPServer
import JSON
import Records
import System
import Uploads

/// The read-URL routes: `GET /images/{id}/url` (one record's stable URL and its policy),
/// `POST /images/urls` (many records' URLs for a list screen, in one call) and `GET /images/{id}/content`
/// (a 302 to the stable URL, for an image view pointed at a fixed app URL). Each reads its records from
/// the store on a worker (a deleted record is a 404 at once, on every instance) and signs with
/// `UploadRecords.readURL(for:requested:)`.
extension ImagesService {
    /// The most ids one `POST /images/urls` may ask for.
    static let maxBatchIds = 100

    /// Seconds a redirect of `GET /images/{id}/content` stops being cacheable before its URL expires, so
    /// that a client following a cached redirect still reaches storage with a valid URL.
    static let redirectMarginSeconds: Int64 = 60

    /// A checked request of one record's read URL: its id and the disposition asked for.
    struct ReadRequest: Sendable {
        /// The record id, lower case.
        let id: String
        /// `?disposition=`, when given.
        let disposition: ReadDisposition?
    }

    /// The three read-URL routes, behind the gate's confirm limits as the other records routes.
    func readURLRoutes(_ group: RouteGroup<HousePresenter>) -> [Route] {
        let urlRoute = group.route(
            .confirm, validate: { (_, request) throws(APIError) in try ImagesService.readRequest(request) },
            perform: { [self] (caller, r) throws(APIError) in try readURL(r, caller: caller) })
        let contentRoute = group.route(
            .confirm, validate: { (_, request) throws(APIError) in try ImagesService.readRequest(request) },
            perform: { [self] (caller, r) throws(APIError) in try redirect(r, caller: caller) })
        let batchRoute = group.route(
            .confirm, validate: { [self] (_, request) throws(APIError) in try batch(request) },
            perform: { [self] (caller, ids) throws(APIError) in try readURLs(ids, caller: caller) })
        return [
            Route(.GET, "/images/{id}/url", brief: true, handler: urlRoute),
            Route(.GET, "/images/{id}/content", brief: true, handler: contentRoute),
            Route(.POST, "/images/urls", maxBodyBytes: maxJsonBodyBytes, brief: true, handler: batchRoute),
        ]
    }

    // MARK: - Checks on the event loop

    /// The id (a malformed one is a record that does not exist: 404) and `?disposition=`
    /// (`attachment` or `inline`, else 422) of `GET /images/{id}/url` and `/content`.
    static func readRequest(_ request: Request) throws(APIError) -> ReadRequest {
        let id = try recordId(request)
        var disposition: ReadDisposition?
        var valid = true
        guard
            request.forEachQueryItem({ name, value in
                guard name == "disposition" else { return }
                disposition = ReadDisposition(rawValue: value)
                if disposition == nil { valid = false }
            })
        else { throw .malformedQuery }
        guard valid else { throw .validation(["disposition": "disposition must be attachment or inline"]) }
        return ReadRequest(id: id, disposition: disposition)
    }

    /// The ids of `POST /images/urls {"ids":[…]}`: 1 to `maxBatchIds` strings, none twice (either case
    /// of one UUID is the same id), each answered under the text it was sent as. A string that is no
    /// UUID names no record: it is answered in `missing`, as another owner's id is.
    func batch(_ request: Request) throws(APIError) -> [(sent: String, id: String?)] {
        let object = try RequestValidation.jsonObject(request, maxDepth: 8, maxBytes: maxJsonBodyBytes)
        guard let value = object["ids"] else { throw .validation(["ids": "ids is required"]) }
        guard let array = value.arrayValue else { throw .validation(["ids": "ids must be an array of record ids"]) }
        guard (1...Self.maxBatchIds).contains(array.count) else {
            throw .validation(["ids": "ids must hold 1 to \(Self.maxBatchIds) record ids; got \(array.count)"])
        }
        var ids: [(sent: String, id: String?)] = []
        ids.reserveCapacity(array.count)
        var seen = Set<String>(minimumCapacity: array.count)
        for (index, element) in array.enumerated() {
            guard let sent = element.stringValue else {
                throw .validation(["ids": "ids[\(index)] is not a string"])
            }
            let id = RequestValidation.canonicalUUID(sent)
            guard seen.insert(id ?? sent).inserted else {
                throw .validation(["ids": "ids[\(index)] repeats an id given before it"])
            }
            ids.append((sent, id))
        }
        return ids
    }

    // MARK: - Work on a worker

    /// `GET /images/{id}/url`: `{"url","expiresAt","contentType","disposition"}`; 404 for a record that
    /// is not the caller's, 422 when `inline` is asked for a type that is not shown in place.
    func readURL(_ r: ReadRequest, caller: Caller) throws(APIError) -> Response {
        let read = try signedRead(r, caller: caller)
        var w = JSONWriter(reservingCapacity: read.url.utf8.count + 128)
        w.beginObject()
        w.key("url")
        w.string(read.url)
        w.key("expiresAt")
        if let at = read.expiresAt { w.string(ISO8601Timestamp.string(epochSeconds: at)) } else { w.null() }
        w.key("contentType")
        w.string(read.contentType)
        w.key("disposition")
        if let d = read.disposition { w.string(d.rawValue) } else { w.null() }
        w.endObject()
        return Response(status: 200, headers: APIError.jsonNoStoreHeaders, body: w.bytes)
    }

    /// `GET /images/{id}/content`: 302 to the stable URL, cacheable privately until
    /// `redirectMarginSeconds` before the URL expires (a CDN URL, which does not expire: for
    /// `presign.readUrlExpiresSeconds`).
    func redirect(_ r: ReadRequest, caller: Caller) throws(APIError) -> Response {
        let read = try signedRead(r, caller: caller)
        let maxAge: Int64
        if let at = read.expiresAt {
            maxAge = max(0, at - records.nowSeconds() - Self.redirectMarginSeconds)
        } else {
            maxAge = Int64(records.window.lifeSeconds)
        }
        return Response(
            status: 302,
            headers: [("Location", read.url), ("Cache-Control", "private, max-age=" + String(maxAge))])
    }

    /// The caller's record `r.id`, signed with the disposition asked for.
    private func signedRead(_ r: ReadRequest, caller: Caller) throws(APIError) -> ReadURL {
        let record: ImageRecord
        do throws(UploadError) {
            record = try records.record(id: r.id, owner: caller.userId)
        } catch {
            throw APIError(error)
        }
        if r.disposition == .inline && !ReadPolicy.allowsInline(record.contentType) {
            throw .validation(["disposition": Self.inlineRefusal])
        }
        do throws(UploadError) {
            return try records.readURL(for: record, requested: r.disposition)
        } catch {
            throw APIError(error)
        }
    }

    /// Why `?disposition=inline` is refused for a record outside `ReadPolicy.inlineContentTypes`.
    static let inlineRefusal =
        "disposition inline is only for " + ReadPolicy.inlineContentTypes.sorted().joined(separator: ", ")
        + "; this object is served as attachment"

    /// `POST /images/urls`: `{"urls":{"<id>":{"url","expiresAt"}},"missing":["<id>",…],"pending":[…]}`, each id as it
    /// was sent, in the order sent; an id with no record of the caller's (another owner's, deleted,
    /// never made, no UUID, or rejected by its scan) is in `missing`, and the id of a record still
    /// `scanning` in `pending` (docs/scanning.md).
    func readURLs(_ ids: [(sent: String, id: String?)], caller: Caller) throws(APIError) -> Response {
        do throws(UploadError) {
            let found = try records.records(ids: ids.compactMap { $0.id }, owner: caller.userId)
            var byId: [String: ImageRecord] = [:]
            byId.reserveCapacity(found.count)
            for record in found { byId[record.id] = record }
            var w = JSONWriter(reservingCapacity: 64 + found.count * 640)
            var missing: [String] = []
            var pending: [String] = []
            w.beginObject()
            w.key("urls")
            w.beginObject()
            for (sent, id) in ids {
                guard let id, let record = byId[id], record.state != .rejected else {
                    missing.append(sent)
                    continue
                }
                guard record.state == .published else {
                    pending.append(sent)
                    continue
                }
                let read = try records.readURL(for: record)
                w.key(sent)
                w.beginObject()
                w.key("url")
                w.string(read.url)
                w.key("expiresAt")
                if let at = read.expiresAt { w.string(ISO8601Timestamp.string(epochSeconds: at)) } else { w.null() }
                w.endObject()
            }
            w.endObject()
            w.key("missing")
            w.beginArray()
            for sent in missing { w.string(sent) }
            w.endArray()
            w.key("pending")
            w.beginArray()
            for sent in pending { w.string(sent) }
            w.endArray()
            w.endObject()
            return Response(status: 200, headers: APIError.jsonNoStoreHeaders, body: w.bytes)
        } catch {
            throw APIError(error)
        }
    }
}
