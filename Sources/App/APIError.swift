import Auth
import Config
import HTTPServer
import ImageProbe
import JSON
import ObjectStore

/// Every error a client of the API can see, with the context its message needs.
///
/// Handlers throw these; `response` is the one place that turns them into a status, a stable `code`
/// and a `message` (`{"code":…,"message":…}`, not cacheable). Validation errors use client P's shape
/// with `fieldErrors`.
public enum APIError: Error, Sendable, Equatable {
    /// 400 `MALFORMED_QUERY`: the query string is not valid percent-encoded UTF-8.
    case malformedQuery
    /// 400 `MALFORMED_JSON`: the body does not parse (the parser's reason).
    case malformedJSON(String)
    /// 415 `UNSUPPORTED_MEDIA_TYPE`: a body that is not `application/json`.
    case unsupportedMediaType
    /// 422 `{"code":"4220","message":"UNPROCESSABLE_CONTENT","fieldErrors":{field: message}}`.
    case validation(FieldErrors)
    /// 400 `INVALID_USER`: the development user header (named) breaks `UserIdRule`.
    case invalidUser(header: String)
    /// 401 `UNAUTHORIZED` with the failure's challenge; the body never says why.
    case unauthorized(AuthFailure)
    /// 429 `RATE_LIMITED` with `Retry-After`.
    case rateLimited(retryAfterSeconds: Int)
    /// 500 `SIGNING_FAILED`: the URL could not be signed.
    case signingFailed
    /// 409 `KEY_ALREADY_RECORDED`: a new URL for a recorded key would let its object be overwritten.
    case keyAlreadyRecorded
    /// 409 `KEY_IN_USE`: the key was issued to another user and has not expired.
    case keyInUse
    /// 409 `ALREADY_RECORDED`: another user recorded this image.
    case recordedByAnotherUser
    /// 404 `INTENT_NOT_FOUND`: no upload URL was issued for the key.
    case intentNotFound
    /// 403 `FORBIDDEN`: the key was issued to another user.
    case issuedToAnotherUser
    /// 403 `ADMIN_REQUIRED`: an operator route (`POST /admin/explain`) called without an API key that
    /// has the `admin` scope.
    case adminRequired
    /// 404 `IMAGE_NOT_UPLOADED`: the URL was issued, but nothing is in storage under it.
    case imageNotUploaded
    /// 422 `IMAGE_TOO_LARGE`: the stored object's size and the limit.
    case imageTooLarge(size: Int64, limit: Int64)
    /// 422 `CONTENT_TYPE_NOT_ALLOWED`: what storage holds (nil: none) and what the type allows.
    case contentTypeNotAllowed(stored: String?, type: String, allowed: [String])
    /// 422 `CONTENT_MISMATCH`: the object's first bytes are no image, or an image of a format the type
    /// does not allow (docs/content-check.md).
    case contentMismatch(ContentMismatch)
    /// 404 `IMAGE_NOT_FOUND`: the caller has no record with this id.
    case imageNotFound
    /// 503 `STORE_UNAVAILABLE`: the records store failed.
    case storeUnavailable
    /// 503 `STORE_UNAVAILABLE` with `Retry-After`: the intent writer's queue is full (the database is
    /// down or far behind), so no URL is issued: its intent could not be kept, and a URL whose intent
    /// is lost can never be confirmed.
    case intentsBacklogged
    /// 502 `STORAGE_ERROR`, 503 `STORAGE_UNAVAILABLE` or 504 `STORAGE_TIMEOUT`: a call to the object
    /// store failed (the detail stays in the server).
    case storage(ObjectStoreError)
    /// 503 `CREDENTIALS_UNAVAILABLE` with `Retry-After`: the server's storage credentials have
    /// `secondsLeft` seconds of life (0: expired), too few for a URL worth issuing; a refresh is due.
    case credentialsUnavailable(secondsLeft: Int)

    /// The error a failure of a handler's work stands for: itself when it is an `APIError`, a storage
    /// failure for an `ObjectStoreError`, and otherwise the records store (the only other thing a
    /// handler calls that can fail).
    init(_ error: any Error) {
        switch error {
        case let e as APIError: self = e
        case let e as ObjectStoreError: self = .storage(e)
        default: self = .storeUnavailable
        }
    }

    /// The HTTP status.
    public var status: Int {
        switch self {
        case .malformedQuery, .malformedJSON, .invalidUser: return 400
        case .unsupportedMediaType: return 415
        case .validation, .imageTooLarge, .contentTypeNotAllowed, .contentMismatch: return 422
        case .unauthorized: return AuthFailure.status
        case .rateLimited: return 429
        case .signingFailed: return 500
        case .keyAlreadyRecorded, .keyInUse, .recordedByAnotherUser: return 409
        case .intentNotFound, .imageNotUploaded, .imageNotFound: return 404
        case .issuedToAnotherUser, .adminRequired: return 403
        case .storeUnavailable, .intentsBacklogged: return 503
        case .credentialsUnavailable: return 503
        case .storage(.timeout): return 504
        case .storage(.status): return 502
        case .storage: return 503
        }
    }

    /// The stable machine code (`4220` for validation errors).
    public var code: String {
        switch self {
        case .malformedQuery: return "MALFORMED_QUERY"
        case .malformedJSON: return "MALFORMED_JSON"
        case .unsupportedMediaType: return "UNSUPPORTED_MEDIA_TYPE"
        case .validation: return "4220"
        case .invalidUser: return "INVALID_USER"
        case .unauthorized: return "UNAUTHORIZED"
        case .rateLimited: return "RATE_LIMITED"
        case .signingFailed: return "SIGNING_FAILED"
        case .keyAlreadyRecorded: return "KEY_ALREADY_RECORDED"
        case .keyInUse: return "KEY_IN_USE"
        case .recordedByAnotherUser: return "ALREADY_RECORDED"
        case .intentNotFound: return "INTENT_NOT_FOUND"
        case .issuedToAnotherUser: return "FORBIDDEN"
        case .adminRequired: return "ADMIN_REQUIRED"
        case .imageNotUploaded: return "IMAGE_NOT_UPLOADED"
        case .imageTooLarge: return "IMAGE_TOO_LARGE"
        case .contentTypeNotAllowed: return "CONTENT_TYPE_NOT_ALLOWED"
        case .contentMismatch: return "CONTENT_MISMATCH"
        case .imageNotFound: return "IMAGE_NOT_FOUND"
        case .storeUnavailable, .intentsBacklogged: return "STORE_UNAVAILABLE"
        case .credentialsUnavailable: return "CREDENTIALS_UNAVAILABLE"
        case .storage(.timeout): return "STORAGE_TIMEOUT"
        case .storage(.status): return "STORAGE_ERROR"
        case .storage: return "STORAGE_UNAVAILABLE"
        }
    }

    /// The human message (`UNPROCESSABLE_CONTENT` for validation errors).
    public var message: String {
        switch self {
        case .malformedQuery: return "the query string is not valid percent-encoded UTF-8"
        case .malformedJSON(let reason): return "the body is not valid JSON: \(reason)"
        case .unsupportedMediaType: return "send the body as application/json"
        case .validation: return "UNPROCESSABLE_CONTENT"
        case .invalidUser(let header): return "\(header) must be \(UserIdRule.summary)"
        case .unauthorized: return "invalid or missing credentials"
        case .rateLimited: return "too many requests; retry later"
        case .signingFailed: return "the URL could not be signed"
        case .keyAlreadyRecorded: return "this imageKey is already recorded"
        case .keyInUse, .issuedToAnotherUser: return "this imageKey was issued to another user"
        case .recordedByAnotherUser: return "this image is recorded by another user"
        case .intentNotFound: return "no upload URL was issued for this imageKey"
        case .imageNotUploaded: return "the object is not in storage yet"
        case .imageTooLarge(let size, let limit): return "the object is \(size) bytes; the limit is \(limit)"
        case .contentTypeNotAllowed(let stored, let type, let allowed):
            return APIError.contentTypeRefusal(stored: stored, type: type, allowed: allowed)
        case .contentMismatch(let mismatch): return mismatch.message
        case .imageNotFound: return "no such image"
        case .adminRequired: return "this route needs an API key with the admin scope"
        case .storeUnavailable: return "the records store is not available"
        case .intentsBacklogged: return "the records store is behind; no URL was issued, retry shortly"
        case .credentialsUnavailable(let left):
            return left > 0
                ? "the server's storage credentials expire in \(left) s, too soon for a URL; retry shortly"
                : "the server's storage credentials have expired; retry shortly"
        case .storage(.timeout): return "the object store did not answer in time"
        case .storage(.status): return "the object store refused the request"
        case .storage: return "the object store is not available"
        }
    }

    /// The headers of every JSON answer of the API: JSON, not cacheable (one shared array, so a
    /// response does not build its own).
    static let jsonNoStoreHeaders: [(name: String, value: String)] = [
        ("Content-Type", "application/json"), ("Cache-Control", "no-store"),
    ]

    /// The response a client gets: the JSON body, the status, and the headers some errors add
    /// (`WWW-Authenticate` for 401, `Retry-After` for 429).
    public var response: Response {
        var body: [UInt8] = []
        switch self {
        case .validation(let errors):
            var w = JSONWriter(reservingCapacity: 128)
            w.beginObject()
            w.key("code")
            w.string(code)
            w.key("message")
            w.string(message)
            w.key("fieldErrors")
            w.beginObject()
            for f in errors.list {
                w.key(f.field)
                w.string(f.message)
            }
            w.endObject()
            w.endObject()
            body = w.bytes
        case .unauthorized:
            body = Array(AuthFailure.responseBody.utf8)
        default:
            body = ErrorBody.json(status: status, code: code, message: message).body
        }
        var response = Response(status: status, headers: APIError.jsonNoStoreHeaders, body: body)
        switch self {
        case .unauthorized(let failure): response.headers.append(("WWW-Authenticate", failure.challenge))
        case .rateLimited(let seconds): response.headers.append(("Retry-After", String(seconds)))
        case .intentsBacklogged: response.headers.append(("Retry-After", "5"))
        case .credentialsUnavailable: response.headers.append(("Retry-After", "10"))
        default: break
        }
        return response
    }

    /// The message of `CONTENT_TYPE_NOT_ALLOWED`: the content type storage holds (at most
    /// `maxShownContentType` characters of it) and the ones the upload type allows, so the uploader
    /// can fix its `Content-Type`.
    static func contentTypeRefusal(stored: String?, type: String, allowed: [String]) -> String {
        let allows = "; type \(type) allows " + allowed.joined(separator: ", ")
        guard let stored, !stored.isEmpty else { return "the object was stored without a content type" + allows }
        var shown = String(stored.prefix(maxShownContentType))
        if shown.count < stored.count { shown += "…" }
        return "the object was stored with content type \"\(shown)\"" + allows
    }

    /// The most characters of a stored content type repeated in an error message.
    static let maxShownContentType = 100
}
