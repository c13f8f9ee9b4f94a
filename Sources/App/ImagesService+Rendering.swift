import HTTPServer
import JSON
import Records
import SigV4

extension ImagesService {
    /// A record as the JSON answer with `status`, not cacheable.
    func recordResponse(_ r: ImageRecord, status: Int) -> Response {
        var w = JSONWriter(reservingCapacity: 768)
        writeRecord(r, to: &w)
        return .json(status, w.bytes, extraHeaders: [("Cache-Control", "no-store")])
    }

    /// One page of `GET /images`: `{"items":[record…],"nextCursor":token or null}`.
    func pageResponse(_ page: (records: [ImageRecord], next: RecordCursor?)) -> Response {
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
    }

    /// Writes a record's members (with a read URL) to `w`.
    func writeRecord(_ r: ImageRecord, to w: inout JSONWriter) {
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
        w.key("detectedType")
        if let detected = r.detectedType { w.string(detected) } else { w.null() }
        w.key("width")
        if let width = r.width { w.int(width) } else { w.null() }
        w.key("height")
        if let height = r.height { w.int(height) } else { w.null() }
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

    /// A CDN URL when configured, else a fresh signed GET valid `expires` seconds (default
    /// `presign.readUrlExpiresSeconds`).
    func readURL(for key: String, expires: Int? = nil) -> String? {
        if let cdnBaseUrl { return cdnBaseUrl + "/" + key }
        let now = env.nowMillis() / 1000
        return try? readSigner.presign(
            PresignRequest(method: "GET", bucket: bucket, key: key, expires: expires ?? readUrlExpires), now: now
        ).url
    }
}
