import HTTPServer
import JSON
import Records

extension ImagesService {
    /// A record as the JSON answer with `status`, not cacheable (`deduplicated`: a confirmation answered
    /// by an earlier record of the same bytes).
    func recordResponse(_ r: ImageRecord, status: Int, deduplicated: Bool = false) -> Response {
        .json(
            status, RecordJSON.body(r, records: records, deduplicated: deduplicated),
            extraHeaders: [("Cache-Control", "no-store")])
    }

    /// One page of `GET /images`: `{"items":[record…],"nextCursor":token or null}`.
    func pageResponse(_ page: (records: [ImageRecord], next: RecordCursor?)) -> Response {
        var w = JSONWriter(reservingCapacity: 512 * max(1, page.records.count))
        w.beginObject()
        w.key("items")
        w.beginArray()
        for r in page.records { RecordJSON.write(r, readURL: records.url(for: r), to: &w) }
        w.endArray()
        w.key("nextCursor")
        if let next = page.next { w.string(next.token) } else { w.null() }
        w.endObject()
        return .json(200, w.bytes, extraHeaders: [("Cache-Control", "no-store")])
    }
}
