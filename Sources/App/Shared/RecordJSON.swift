import HTTPServer
import JSON
import Records
import Uploads

/// A record as the API shows it (`POST /images`, `GET /images…`, and inside Uppy's completion answer):
/// its members and a read URL.
enum RecordJSON {
    /// Writes `r`'s members, with its read URL from `records`, to `w`; `deduplicated` (a confirmation that
    /// answered an earlier record of the same bytes) adds `"deduplicated": true`.
    static func write(_ r: ImageRecord, readURL: String?, deduplicated: Bool = false, to w: inout JSONWriter) {
        w.beginObject()
        writeMembers(r, to: &w)
        w.key("url")
        if let readURL { w.string(readURL) } else { w.null() }
        if deduplicated {
            w.key("deduplicated")
            w.bool(true)
        }
        w.endObject()
    }

    /// Writes `r`'s members but its read URL inside an object the caller opened: the record as the API
    /// shows it, and as a webhook event's `data` carries it (`WebhookEvents`).
    @Sendable static func writeMembers(_ r: ImageRecord, to w: inout JSONWriter) {
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
        w.key("sha256")
        if let sha256 = r.sha256 { w.string(sha256) } else { w.null() }
        w.key("metadata")
        w.raw(r.metadataJSON)
        w.key("createdAt")
        w.string(Timestamp.iso8601Millis(r.createdAtMs))
        w.key("state")
        w.string(r.state.rawValue)
        if r.state == .rejected {
            w.key("rejection")
            w.beginObject()
            w.key("reason")
            w.string(r.rejectionReason ?? "")
            w.key("message")
            w.string(r.rejectionDetail ?? "")
            w.endObject()
        }
    }

    /// `r` as a JSON body (its read URL from `records`).
    static func body(_ r: ImageRecord, records: UploadRecords, deduplicated: Bool = false) -> [UInt8] {
        var w = JSONWriter(reservingCapacity: 768)
        write(r, readURL: records.url(for: r), deduplicated: deduplicated, to: &w)
        return w.bytes
    }
}
