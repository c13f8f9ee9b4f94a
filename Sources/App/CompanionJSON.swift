import HTTPServer
import JSON

/// A refusal of the Uppy routes, in Uppy Companion's shape: `{"error": message, "code": code}` with
/// the status (400 for bad input, as Companion answers it). `@uppy/aws-s3` parses every answer as
/// JSON, so errors are JSON too; `code` is ours, stable, for clients that act on it (a
/// `NO_SUCH_UPLOAD` means: start again with a new key and upload ID).
struct CompanionError: Error, Sendable {
    /// The HTTP status.
    let status: Int
    /// The stable machine code.
    let code: String
    /// The human message, Companion's `error`.
    let message: String
    /// Extra headers (`Retry-After`, `WWW-Authenticate`) of a refusal that came from an `APIError`.
    var headers: [(name: String, value: String)] = []

    /// A refusal from its parts.
    init(_ status: Int, _ code: String, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    /// The house's refusal `error` in this shape: the same status, code and headers.
    init(_ error: APIError) {
        self.init(error.status, error.code, error.message)
        let dropped: Set<String> = ["content-type", "cache-control"]
        headers = error.response.headers.filter { !dropped.contains($0.name.lowercased()) }
        if case .validation(let fields) = error {
            self = CompanionError(
                400, "BAD_REQUEST", fields.list.map { "\($0.field): \($0.message)" }.joined(separator: "; "))
        }
    }

    /// The refusal `error` is, whatever was thrown (an `APIError`, a storage failure, the records store).
    static func from(_ error: any Error) -> CompanionError {
        if let e = error as? CompanionError { return e }
        return CompanionError(APIError(error))
    }

    /// 400 `BAD_REQUEST` with `message`.
    static func badRequest(_ message: String) -> CompanionError { CompanionError(400, "BAD_REQUEST", message) }

    /// 404 `NO_SUCH_UPLOAD`: the same answer whether the upload was never issued to the caller, is
    /// another caller's, or storage no longer knows it (aborted, completed, expired), so nothing about
    /// other callers' uploads is revealed; the client's remedy is the same in every case.
    static let noSuchUpload = CompanionError(
        404, "NO_SUCH_UPLOAD", "no such upload: start again with a new key and upload ID")

    static let missingKey = badRequest(
        "s3: the object key must be passed as a query parameter. For example: \"?key=abc.jpg\"")

    static let badPartNumber = badRequest("s3: the part number must be a number between 1 and 10000.")

    /// The JSON answer.
    var response: Response {
        var w = JSONWriter(reservingCapacity: 64 + message.utf8.count)
        w.beginObject()
        w.key("error")
        w.string(message)
        w.key("code")
        w.string(code)
        w.endObject()
        return Response(status: status, headers: APIError.jsonNoStoreHeaders + headers, body: w.bytes)
    }
}

extension Response {
    /// A 200 JSON answer of the Uppy routes, not cacheable.
    static func companion(_ body: [UInt8], status: Int = 200) -> Response {
        Response(status: status, headers: APIError.jsonNoStoreHeaders, body: body)
    }
}
