import HTTPServer
import JSON

/// The JSON error bodies a client sees. Every error is a 4xx or 5xx with a stable `code` and a
/// human `message`; validation errors use client P's shape with `fieldErrors`.
public enum APIError {
    /// The headers of every JSON answer of the API: JSON, not cacheable (one shared array, so a
    /// response does not build its own).
    static let jsonNoStoreHeaders: [(name: String, value: String)] = [
        ("Content-Type", "application/json"), ("Cache-Control", "no-store"),
    ]

    /// 422 `{"code":"4220","message":"UNPROCESSABLE_CONTENT","fieldErrors":{field: message}}`.
    public static func unprocessable(_ fieldErrors: [(field: String, message: String)]) -> Response {
        var w = JSONWriter(reservingCapacity: 128)
        w.beginObject()
        w.key("code")
        w.string("4220")
        w.key("message")
        w.string("UNPROCESSABLE_CONTENT")
        w.key("fieldErrors")
        w.beginObject()
        for f in fieldErrors {
            w.key(f.field)
            w.string(f.message)
        }
        w.endObject()
        w.endObject()
        return Response(status: 422, headers: jsonNoStoreHeaders, body: w.bytes)
    }

    /// An error with `status`, a machine `code` and a `message`, not cacheable.
    public static func error(_ status: Int, _ code: String, _ message: String) -> Response {
        var r = Response.error(status, code: code, message: message)
        r.headers.append(("Cache-Control", "no-store"))
        return r
    }
}

/// Collects field errors in the order they were found.
struct FieldErrors {
    private(set) var list: [(field: String, message: String)] = []

    var isEmpty: Bool { list.isEmpty }

    /// Records `message` for `field` (the first message of a field wins).
    mutating func add(_ field: String, _ message: String) {
        if !list.contains(where: { $0.field == field }) { list.append((field, message)) }
    }
}
