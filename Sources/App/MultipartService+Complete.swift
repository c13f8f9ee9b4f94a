import HTTPServer
import JSON
import ObjectStore
import Records

extension MultipartService {
    // MARK: - POST /s3/multipart/{uploadId}/complete

    /// A checked completion: the upload and its parts, sorted by number.
    struct Completion: Sendable {
        let ref: UploadRef
        let parts: [MultipartRules.Part]
    }

    /// Checks a completion on the event loop (its body has a limit of its own, `uppy.completeMaxBodyBytes`).
    func completeRequest(_ request: Request) throws(CompanionError) -> Completion {
        let ref = try MultipartService.uploadRef(request)
        let body: JSONObject
        do throws(APIError) {
            body = try RequestValidation.jsonObject(request, maxDepth: 4, maxBytes: Int.max)
        } catch {
            throw CompanionError(error)
        }
        switch MultipartRules.completionParts(body) {
        case .success(let parts): return Completion(ref: ref, parts: parts)
        case .failure(let refusal): throw refusal
        }
    }

    /// On a worker: checks the parts against ListParts (every page: ETags, 5 MiB–5 GiB but the last,
    /// the type's total), CompleteMultipartUpload with the store's ETags in part order (on the client
    /// with the longer timeout), then the record as `POST /images` makes it (`ImagesService.confirm`:
    /// the owner, a HEAD of the object within the intent's size and type, its content check and
    /// promotion). A repeated completion of a recorded upload answers the same again.
    func complete(_ c: Completion, caller: Caller) throws(CompanionError) -> Response {
        let pair = c.ref.pairKey
        let holder: ImageKeyOwnership.Holder
        do {
            holder = try ownership.holder(of: pair)
        } catch {
            throw CompanionError(APIError.storeUnavailable)
        }
        switch holder {
        case .record(let r) where r.ownerId == caller.userId:
            return try completedAnswer(location: nil, confirmation: images.recordResponse(r, status: 200))
        case .intent(let intent) where intent.ownerId == caller.userId && intent.expiresAtMs > env.nowMillis():
            return try complete(c, intent: intent, caller: caller)
        default:
            throw .noSuchUpload
        }
    }

    private func complete(_ c: Completion, intent: UploadIntent, caller: Caller) throws(CompanionError) -> Response {
        owners.forget(c.ref)
        let listed: [UploadedPart]
        do throws(ObjectStoreError) {
            listed = try storage.listParts(key: c.ref.key, uploadId: c.ref.uploadId)
        } catch {
            throw MultipartService.storageRefusal(error)
        }
        var byNumber: [Int: (etag: String, size: Int64)] = [:]
        byNumber.reserveCapacity(listed.count)
        for p in listed { byNumber[p.partNumber] = (p.etag, p.size) }
        let checked: (parts: [(number: Int, etag: String)], total: Int64)
        switch MultipartRules.checkCompletion(given: c.parts, listed: byNumber, maxBytes: intent.maxBytes) {
        case .success(let ok): checked = ok
        case .failure(let refusal): throw refusal
        }
        let completed: CompletedUpload
        do throws(ObjectStoreError) {
            completed = try completeStorage.completeMultipartUpload(
                key: c.ref.key, uploadId: c.ref.uploadId, parts: checked.parts.map { ($0.number, $0.etag) })
        } catch {
            throw MultipartService.storageRefusal(error)
        }
        let confirmed: Response
        do {
            confirmed = try images.confirm(
                ImagesService.Confirmation(imageKey: c.ref.pairKey, metadataJSON: intent.metadataJSON ?? "{}"),
                caller: caller)
        } catch {
            throw CompanionError.from(error)
        }
        return try completedAnswer(location: completed.location, confirmation: confirmed)
    }

    /// `{location, key, bucket, record}` from the record `POST /images` would answer: `key` is where
    /// the object lives now (its permanent key once promoted), `location` the record's read URL
    /// (else the store's `Location`).
    func completedAnswer(location: String?, confirmation: Response) throws(CompanionError) -> Response {
        guard (200..<300).contains(confirmation.status),
            let record = try? JSONParser(limits: .init(maxDepth: 16, maxBytes: 1 << 20)).parse(confirmation.body)
                .objectValue,
            let key = record["key"]?.stringValue
        else { throw CompanionError(APIError.storeUnavailable) }
        let shown = record["url"]?.stringValue ?? location
        var w = JSONWriter(reservingCapacity: confirmation.body.count + 256)
        w.beginObject()
        w.key("location")
        if let shown { w.string(shown) } else { w.null() }
        w.key("key")
        w.string(key)
        w.key("bucket")
        w.string(presign.bucket)
        w.key("record")
        w.raw(confirmation.body)
        w.endObject()
        return .companion(w.bytes)
    }
}
