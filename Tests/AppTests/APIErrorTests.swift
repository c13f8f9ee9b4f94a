import Auth
import HTTPServer
import ImageProbe
import ObjectStore
import Testing

@testable import App

/// The one mapping of API errors to responses: status, stable code, byte-exact body and headers, and
/// every code named in docs/openapi.yaml (the document the server serves).
@Suite("API errors")
struct APIErrorTests {
    /// One error of every case (and of every storage failure class).
    static let all: [APIError] = [
        .malformedQuery, .malformedJSON("unexpected end"), .unsupportedMediaType, .validation(["type": "unknown type"]),
        .invalidUser(header: "X-User-Id"), .unauthorized(AuthFailure(.expired)), .rateLimited(retryAfterSeconds: 3),
        .signingFailed, .keyAlreadyRecorded, .keyInUse, .recordedByAnotherUser, .intentNotFound,
        .issuedToAnotherUser, .imageNotUploaded, .imageTooLarge(size: 2, limit: 1),
        .contentTypeNotAllowed(stored: "image/gif", type: "PROFILE", allowed: ["image/png"]), .imageNotFound,
        .contentMismatch(.notImage(.markup(.svg))),
        .contentMismatch(.formatNotAllowed(detected: .gif, type: "PROFILE", allowed: ["image/png"])),
        .storeUnavailable, .storage(.timeout("t")), .storage(.status(500, code: nil)), .storage(.connection("c")),
    ]

    @Test("every code the server sends is documented in docs/openapi.yaml", arguments: 0..<all.count)
    func documented(_ index: Int) {
        let error = Self.all[index]
        #expect(OpenAPIDocument.yaml.contains(error.code), "\(error.code)")
        #expect(error.response.status == error.status)
    }

    @Test("bodies are the stable JSON shapes, not cacheable")
    func bodies() {
        func text(_ e: APIError) -> String { String(decoding: e.response.body, as: UTF8.self) }
        #expect(text(.keyInUse) == #"{"code":"KEY_IN_USE","message":"this imageKey was issued to another user"}"#)
        #expect(
            text(.malformedJSON("bad \"x\""))
                == #"{"code":"MALFORMED_JSON","message":"the body is not valid JSON: bad \"x\""}"#)
        #expect(
            text(.validation(["b": "second", "a": "first", "b": "ignored"]))
                == #"{"code":"4220","message":"UNPROCESSABLE_CONTENT","fieldErrors":{"b":"second","a":"first"}}"#)
        #expect(text(.unauthorized(AuthFailure(.badSignature))) == AuthFailure.responseBody)
        #expect(
            text(.contentMismatch(.notImage(.truncated(.png))))
                == #"{"code":"CONTENT_MISMATCH","message":"the object ends inside its PNG header"}"#)
        #expect(APIError.contentMismatch(.notImage(.empty)).status == 422)
        #expect(ContentMismatch.notImage(.markup(.html)).code == "html")
        #expect(ContentMismatch.formatNotAllowed(detected: .gif, type: "T", allowed: []).code == "format_not_allowed")
        for error in Self.all {
            #expect(Array(error.response.headers.prefix(2).map(\.name)) == ["Content-Type", "Cache-Control"])
        }
    }

    @Test("401 carries the failure's challenge and 429 its Retry-After")
    func extraHeaders() {
        let unauthorized = APIError.unauthorized(AuthFailure(.missingCredentials)).response
        #expect(unauthorized.headers.last?.name == "WWW-Authenticate")
        #expect(unauthorized.headers.last?.value == #"Bearer realm="presignd""#)
        let limited = APIError.rateLimited(retryAfterSeconds: 7).response
        #expect(limited.status == 429)
        #expect(limited.headers.last?.name == "Retry-After" && limited.headers.last?.value == "7")
    }

    @Test("a worker's failure maps to its API error: itself, storage 502/503/504, else the store's 503")
    func mapping() {
        #expect(APIError(APIError.imageNotFound) == .imageNotFound)
        #expect(APIError(ObjectStoreError.timeout("x")).status == 504)
        #expect(APIError(ObjectStoreError.status(403, code: "AccessDenied")).code == "STORAGE_ERROR")
        struct Other: Error {}
        #expect(APIError(Other()) == .storeUnavailable)
    }
}
