import Auth
import Config
import HTTPServer
import JSON
import ObjectStore
import Uploads

/// What went wrong with a request, typed: the request itself (its query, body, members), its
/// admission (the gate: user header, credentials, rate limits, the admin scope), or the upload
/// lifecycle (`UploadError`).
///
/// This is the house's table: each case's status, stable `code` and `message`. The native routes answer
/// it as `{"code":…,"message":…}` (`response`, through `HousePresenter`); a compatibility route renders
/// the same code in its app's envelope, and the Uppy routes in Companion's shape. Validation errors use
/// client P's shape with `fieldErrors`.
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
    /// 403 `ADMIN_REQUIRED`: an operator route (`POST /admin/explain`) called without an API key that
    /// has the `admin` scope.
    case adminRequired
    /// 404 `WEBHOOK_EVENT_NOT_FOUND`: no webhook event has this id (`POST /admin/webhooks/{eventId}/redeliver`).
    case webhookEventNotFound
    /// The upload lifecycle's refusal or failure (`UploadError+House.swift` has its status and code).
    case upload(UploadError)

    /// The error of a lifecycle failure; a rejected request's problems become field errors named by
    /// `fields` (a route's member names).
    init(_ error: UploadError, fields: ProblemFields = .native) {
        if case .rejected(let problems) = error {
            self = .validation(FieldErrors(problems, fields: fields))
        } else {
            self = .upload(error)
        }
    }

    /// The HTTP status.
    public var status: Int {
        switch self {
        case .malformedQuery, .malformedJSON, .invalidUser: return 400
        case .unsupportedMediaType: return 415
        case .validation: return 422
        case .unauthorized: return AuthFailure.status
        case .rateLimited: return 429
        case .adminRequired: return 403
        case .webhookEventNotFound: return 404
        case .upload(let e): return e.status
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
        case .adminRequired: return "ADMIN_REQUIRED"
        case .webhookEventNotFound: return "WEBHOOK_EVENT_NOT_FOUND"
        case .upload(let e): return e.code
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
        case .adminRequired: return "this route needs an API key with the admin scope"
        case .webhookEventNotFound: return "no webhook event has this id (it may have been pruned)"
        case .upload(let e): return e.message
        }
    }

    /// The headers some errors add whatever the dialect: `WWW-Authenticate` for 401, `Retry-After` for
    /// 429 and for the 503s a client should retry.
    public var extraHeaders: [(name: String, value: String)] {
        switch self {
        case .unauthorized(let failure): return [("WWW-Authenticate", failure.challenge)]
        case .rateLimited(let seconds): return [("Retry-After", String(seconds))]
        // A store that is down answers every route's 503 with Retry-After: the client retries later
        // (issue 21: a stopped store never answers a URL, and tells when to come back).
        case .upload(.intentsBacklogged), .upload(.intentNotStored), .upload(.store(.unavailable)):
            return [("Retry-After", "5")]
        case .upload(.credentialsUnavailable): return [("Retry-After", "10")]
        case .upload(.confirmationInProgress(let seconds)): return [("Retry-After", String(seconds))]
        case .upload(.quotaExceeded(_, _, _, _, let seconds)): return [("Retry-After", String(seconds))]
        default: return []
        }
    }

    /// The headers of every JSON answer of the API: JSON, not cacheable (one shared array, so a
    /// response does not build its own).
    static let jsonNoStoreHeaders: [(name: String, value: String)] = [
        ("Content-Type", "application/json"), ("Cache-Control", "no-store"),
    ]

    /// The house's answer: the JSON body, the status, and the headers some errors add
    /// (`WWW-Authenticate` for 401, `Retry-After` for 429 and the retryable 503s).
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
        let extra = extraHeaders
        if !extra.isEmpty { response.headers.append(contentsOf: extra) }
        return response
    }
}
