import Auth
import HTTPServer
import ImageProbe
import ObjectStore
import Records
import Testing
import Uploads

@testable import App

/// The house's table of errors (`APIError`, `UploadError+House`) and its presenter: status, stable code,
/// byte-exact body and headers, and every code named in docs/openapi.json (the document the server serves).
@Suite("API errors")
struct APIErrorTests {
    /// One error of every case (and of every storage failure class).
    static let all: [APIError] = [
        .malformedQuery, .malformedJSON("unexpected end"), .unsupportedMediaType, .validation(["type": "unknown type"]),
        .invalidUser(header: "X-User-Id"), .unauthorized(AuthFailure(.expired)), .rateLimited(retryAfterSeconds: 3),
        .upload(.signingFailed), .upload(.keyAlreadyRecorded), .upload(.keyInUse), .upload(.recordedByAnotherUser),
        .upload(.intentNotFound), .upload(.issuedToAnotherUser), .upload(.imageNotUploaded(expiredAtMs: nil)),
        .upload(.imageTooLarge(size: 2, limit: 1, type: "P", declared: false)),
        .upload(.contentTypeNotAllowed(stored: "image/gif", type: "PROFILE", allowed: ["image/png"])),
        .upload(.recordNotFound), .upload(.contentMismatch(.notImage(.markup(.svg)))),
        .upload(.contentMismatch(.formatNotAllowed(detected: .gif, type: "PROFILE", allowed: ["image/png"]))),
        .upload(.store(.unavailable("x"))), .upload(.intentsBacklogged),
        .upload(.credentialsUnavailable(secondsLeft: 0)),
        .upload(.storage(.timeout("t"))), .upload(.storage(.status(500, code: nil))),
        .upload(.storage(.connection("c"))),
    ]

    @Test("every code the server sends is documented in docs/openapi.json", arguments: 0..<all.count)
    func documented(_ index: Int) {
        let error = Self.all[index]
        #expect(OpenAPIDocument.text.contains(error.code), "\(error.code)")
        #expect(error.response.status == error.status)
    }

    @Test("bodies are the stable JSON shapes, not cacheable")
    func bodies() {
        func text(_ e: APIError) -> String { String(decoding: e.response.body, as: UTF8.self) }
        #expect(
            text(.upload(.keyInUse)) == #"{"code":"KEY_IN_USE","message":"this imageKey was issued to another user"}"#)
        #expect(
            text(.malformedJSON("bad \"x\""))
                == #"{"code":"MALFORMED_JSON","message":"the body is not valid JSON: bad \"x\""}"#)
        #expect(
            text(.validation(["b": "second", "a": "first", "b": "ignored"]))
                == #"{"code":"4220","message":"UNPROCESSABLE_CONTENT","fieldErrors":{"b":"second","a":"first"}}"#)
        #expect(text(.unauthorized(AuthFailure(.badSignature))) == AuthFailure.responseBody)
        #expect(
            text(.upload(.contentMismatch(.notImage(.truncated(.png)))))
                == #"{"code":"CONTENT_MISMATCH","message":"the object ends inside its PNG header"}"#)
        #expect(APIError.upload(.contentMismatch(.notImage(.empty))).status == 422)
        #expect(
            text(.upload(.store(.unavailable("secret detail"))))
                == #"{"code":"STORE_UNAVAILABLE","message":"the records store is not available"}"#)
        #expect(ContentMismatch.notImage(.markup(.html)).code == "html")
        #expect(ContentMismatch.formatNotAllowed(detected: .gif, type: "T", allowed: []).code == "format_not_allowed")
        for error in Self.all {
            #expect(Array(error.response.headers.prefix(2).map(\.name)) == ["Content-Type", "Cache-Control"])
        }
    }

    @Test("401 carries the failure's challenge, 429 and the retryable 503s their Retry-After")
    func extraHeaders() {
        let unauthorized = APIError.unauthorized(AuthFailure(.missingCredentials)).response
        #expect(unauthorized.headers.last?.name == "WWW-Authenticate")
        #expect(unauthorized.headers.last?.value == #"Bearer realm="presignd""#)
        let limited = APIError.rateLimited(retryAfterSeconds: 7).response
        #expect(limited.status == 429)
        #expect(limited.headers.last?.name == "Retry-After" && limited.headers.last?.value == "7")
        #expect(APIError.upload(.intentsBacklogged).response.headers.last?.value == "5")
        #expect(APIError.upload(.credentialsUnavailable(secondsLeft: 3)).response.headers.last?.value == "10")
        #expect(APIError.upload(.keyInUse).response.headers.count == 2)
    }

    @Test("a lifecycle failure maps to the house's error: a rejected request's problems become field errors")
    func mapping() {
        #expect(APIError(UploadError.recordNotFound) == .upload(.recordNotFound))
        #expect(APIError(UploadError.storage(.timeout("x"))).status == 504)
        #expect(APIError(UploadError.storage(.status(403, code: "AccessDenied"))).code == "STORAGE_ERROR")
        #expect(APIError(UploadError.store(.corrupt("x"))).code == "STORE_UNAVAILABLE")
        #expect(
            APIError(UploadError.rejected([.unknownType("X", known: []), .extensionMissing]))
                == .validation(["type": "unknown type", "ext": "ext is required"]))
        var fields = ProblemFields.native
        fields.type = "kind"
        #expect(
            APIError(UploadError.rejected([.unknownType("X", known: [])]), fields: fields)
                == .validation(["kind": "unknown type"])
        )
    }

    /// (problem, the native field, its message): the text of each rule a request can break.
    static let problems: [(UploadProblem, String, String)] = [
        (.typeMissing, "type", "type is required"), (.unknownType("X", known: []), "type", "unknown type"),
        (.extensionMissing, "ext", "ext is required"),
        (.extensionNotAllowed("gif", type: "P", allowed: ["jpg", "png"]), "ext", "ext must be one of jpg, png"),
        (.chatroomIdNotNumeric, "chatroomId", "chatroomId must be a number"),
        (.chatroomIdRequired(type: "CHAT"), "chatroomId", "chatroomId is required for type CHAT"),
        (
            .contentTypeNotAllowed("image/gif", type: "P", allowed: ["image/png"]), "contentType",
            "contentType must be one of image/png"
        ),
        (
            .sizeOverLimit(9, type: "P", limit: 8), "size",
            "size must be at most 8 bytes, the limit of type P (the setting types.P.maxBytes raises it)"
        ),
        (.keyUnrenderable(type: "P"), "type", "the key for this type cannot be built from these values"),
        (
            .typeNotAccepted("FEED", accepted: ["PROFILE", "CHAT"]), "imageKey",
            "imageKey must be an upload of type PROFILE or CHAT"
        ),
    ]

    @Test("each rule of an upload type reads on its native field", arguments: 0..<problems.count)
    func problemFields(_ index: Int) {
        let (problem, field, message) = Self.problems[index]
        let entry = ProblemFields.native.entry(problem)
        #expect(entry.field == field && entry.message == message)
    }

    @Test("a body without chatroomId reports a type that requires one on `type`; form errors win over rules")
    func bodyFields() {
        let entry = ProblemFields(chatroomId: nil).entry(.chatroomIdRequired(type: "CHAT"))
        #expect(
            entry.field == "type"
                && entry.message == "type CHAT requires a chatroomId: issue it with GET /presigned-url")
        let merged = FieldErrors(
            parsed: ["imageKey": "imageKey must be a UUID", "type": "type must be a string"],
            problems: [.unknownType("X", known: []), .sizeOverLimit(9, type: "P", limit: 8)], fields: .native,
            order: ["type", "contentType", "imageKey", "size"])
        #expect(
            merged
                == [
                    "type": "type must be a string", "imageKey": "imageKey must be a UUID",
                    "size":
                        "size must be at most 8 bytes, the limit of type P (the setting types.P.maxBytes raises it)",
                ])
    }
}
