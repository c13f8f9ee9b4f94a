import HTTPServer
import JSON
import Records
import Uploads

extension MultipartService {
    // MARK: - POST /s3/multipart/{uploadId}/complete

    /// A read completion: the upload and its parts, sorted by number.
    struct Completion: Sendable {
        let ref: UploadRef
        let parts: [PartRules.Part]
    }

    /// Reads a completion on the event loop (its body has a limit of its own, `uppy.completeMaxBodyBytes`).
    func completeRequest(_ request: Request) throws(CompanionError) -> Completion {
        let ref = try MultipartService.uploadRef(request)
        let body: JSONObject
        do throws(APIError) {
            body = try RequestValidation.jsonObject(request, maxDepth: 4, maxBytes: Int.max)
        } catch {
            throw .request(error)
        }
        switch MultipartRules.completionParts(body) {
        case .success(let parts): return Completion(ref: ref, parts: parts)
        case .failure(let refusal): throw refusal
        }
    }

    /// On a worker: the upload completed and recorded (`MultipartUploads.complete`), answered as
    /// `{location, key, bucket, record}`: `record` is what `POST /images` answers for it, `key` where
    /// the object lives now (its permanent key once promoted), `location` the record's read URL (else
    /// the store's `Location`). A repeated completion of a recorded upload answers the same again.
    func complete(_ c: Completion, caller: Caller) throws(CompanionError) -> Response {
        let completed = try lifecycle { () throws(UploadError) in
            try uploads.complete(c.ref, parts: c.parts, owner: caller.userId)
        }
        let record = completed.record
        let url = records.url(for: record)
        var recordJSON = JSONWriter(reservingCapacity: 768)
        RecordJSON.write(record, readURL: url, deduplicated: completed.deduplicated, to: &recordJSON)
        var w = JSONWriter(reservingCapacity: recordJSON.bytes.count + 256)
        w.beginObject()
        w.key("location")
        // A record not published (its scan pending) shows no location to read it at.
        let published = record.state == .published
        if let shown = url ?? (published ? completed.location : nil) { w.string(shown) } else { w.null() }
        w.key("key")
        w.string(record.objectKey)
        w.key("bucket")
        w.string(uploads.bucket)
        w.key("record")
        w.raw(recordJSON.bytes)
        w.endObject()
        return .companion(w.bytes, status: record.state == .scanning ? 202 : 200)
    }
}
