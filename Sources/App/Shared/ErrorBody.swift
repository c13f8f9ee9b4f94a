import HTTPServer
import JSON

/// The API's error body, `{"code":"…","message":"…"}` as `application/json` (docs/openapi.json's
/// `Error`): used by the handlers (`APIError`) and, through `ServerOptions.errorBody`, by the server's
/// own answers (404, 405, 408, 413, 414, 431, 501, 505, 400).
enum ErrorBody {
    /// The JSON body and its content type.
    @Sendable static func json(status: Int, code: String, message: String) -> (contentType: String, body: [UInt8]) {
        var body: [UInt8] = []
        body.reserveCapacity(48 + message.utf8.count)
        JSONWriter.appendLiteral(#"{"code":"#, to: &body)
        JSONWriter.appendQuoted(code, to: &body)
        JSONWriter.appendLiteral(#","message":"#, to: &body)
        JSONWriter.appendQuoted(message, to: &body)
        body.append(UInt8(ascii: "}"))
        return ("application/json", body)
    }
}

extension Response {
    /// The stable JSON error body `{"code": code, "message": message}` with `status`.
    static func error(_ status: Int, code: String, message: String) -> Response {
        .json(status, ErrorBody.json(status: status, code: code, message: message).body)
    }
}
