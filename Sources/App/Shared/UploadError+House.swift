import ObjectStore
import System
import Uploads

extension UploadError {
    /// The HTTP status of the house's answer.
    public var status: Int {
        switch self {
        case .rejected: return 422
        case .imageTooLarge, .contentTypeNotAllowed, .contentMismatch, .checksumMismatch, .sizeMismatch: return 422
        case .partsSizeMismatch: return 400
        case .keyAlreadyRecorded, .keyInUse, .recordedByAnotherUser, .confirmationInProgress, .scanPending: return 409
        case .intentExpired: return 410
        case .intentNotFound, .imageNotUploaded, .recordNotFound, .noSuchUpload: return 404
        case .issuedToAnotherUser: return 403
        case .quotaExceeded: return 429
        case .partNotUploaded, .partTooLarge, .partTooSmall, .uploadTooLarge: return 400
        case .store, .intentsBacklogged, .intentNotStored, .credentialsUnavailable: return 503
        case .signingFailed, .configuration: return 500
        case .storage(.timeout): return 504
        case .storage(.status): return 502
        case .storage: return 503
        }
    }

    /// The stable machine code: the one every dialect answers (a compatibility route's error shapes are
    /// chosen by it).
    public var code: String {
        switch self {
        case .rejected: return "4220"
        case .keyAlreadyRecorded: return "KEY_ALREADY_RECORDED"
        case .keyInUse: return "KEY_IN_USE"
        case .recordedByAnotherUser: return "ALREADY_RECORDED"
        case .intentNotFound: return "INTENT_NOT_FOUND"
        case .intentExpired: return "INTENT_EXPIRED"
        case .confirmationInProgress: return "CONFIRMATION_IN_PROGRESS"
        case .issuedToAnotherUser: return "FORBIDDEN"
        case .noSuchUpload: return "NO_SUCH_UPLOAD"
        case .imageNotUploaded: return "IMAGE_NOT_UPLOADED"
        case .imageTooLarge: return "IMAGE_TOO_LARGE"
        case .contentTypeNotAllowed: return "CONTENT_TYPE_NOT_ALLOWED"
        case .contentMismatch: return "CONTENT_MISMATCH"
        case .checksumMismatch: return "CHECKSUM_MISMATCH"
        case .sizeMismatch, .partsSizeMismatch: return "SIZE_MISMATCH"
        case .recordNotFound: return "IMAGE_NOT_FOUND"
        case .scanPending: return "SCAN_PENDING"
        case .partNotUploaded: return "INVALID_PART"
        case .partTooLarge, .uploadTooLarge: return "ENTITY_TOO_LARGE"
        case .partTooSmall: return "ENTITY_TOO_SMALL"
        case .store, .intentsBacklogged, .intentNotStored: return "STORE_UNAVAILABLE"
        case .credentialsUnavailable: return "CREDENTIALS_UNAVAILABLE"
        case .quotaExceeded: return "QUOTA_EXCEEDED"
        case .signingFailed: return "SIGNING_FAILED"
        case .configuration: return "CONFIGURATION"
        case .storage(.timeout): return "STORAGE_TIMEOUT"
        case .storage(.status): return "STORAGE_ERROR"
        case .storage: return "STORAGE_UNAVAILABLE"
        }
    }

    /// The human message (the detail of a store's or storage's failure stays in the server).
    public var message: String {
        switch self {
        case .rejected: return "UNPROCESSABLE_CONTENT"
        case .keyAlreadyRecorded: return "this imageKey is already recorded"
        case .keyInUse, .issuedToAnotherUser: return "this imageKey was issued to another user"
        case .recordedByAnotherUser: return "this image is recorded by another user"
        case .intentNotFound: return "no upload URL was issued for this imageKey"
        case .intentExpired: return "the upload URL of this imageKey expired unconfirmed; ask for a new one"
        case .confirmationInProgress:
            return "another confirmation of this imageKey is in progress; retry shortly for its record"
        case .noSuchUpload: return "no such upload: start again with a new key and upload ID"
        case .imageNotUploaded(let expiredAtMs?):
            return "the upload URL expired at \(ISO8601Timestamp.string(epochSeconds: expiredAtMs / 1000)) and nothing "
                + "was uploaded with it; ask for a new one"
        case .imageNotUploaded: return "the object is not in storage yet"
        case .imageTooLarge(let size, let limit, let type, let declared):
            return UploadError.sizeRefusal(
                "the object is \(ByteCountText.of(size))", limit: limit, type: type, declared: declared)
        case .contentTypeNotAllowed(let stored, let type, let allowed):
            return UploadError.contentTypeRefusal(stored: stored, type: type, allowed: allowed)
        case .contentMismatch(let mismatch): return mismatch.message
        case .checksumMismatch(let mismatch): return mismatch.message
        case .sizeMismatch(let size, let declared):
            return "the object is \(size) bytes, not the \(declared) bytes declared for it (size); "
                + "the object was deleted"
        case .partsSizeMismatch(let size, let declared):
            return "s3: the parts add up to \(size) bytes, not the \(declared) bytes declared when the upload was "
                + "created (size)"
        case .recordNotFound: return "no such image"
        case .scanPending: return "the image is being scanned for malware; it has a URL once it is published"
        case .partNotUploaded(let n): return "s3: part \(n) was not uploaded or its ETag does not match"
        case .partTooLarge(let n): return "s3: part \(n) is over 5 GiB"
        case .partTooSmall(let n): return "s3: part \(n) is under 5 MiB and is not the last part"
        case .uploadTooLarge(let size, let limit, let type):
            return UploadError.sizeRefusal(
                "s3: the parts add up to \(ByteCountText.of(size))", limit: limit, type: type, declared: false)
        case .store: return "the records store is not available"
        case .intentsBacklogged: return "the records store is behind; no URL was issued, retry shortly"
        case .intentNotStored:
            return "the records store did not store the upload in time; no URL was issued, retry shortly"
        case .quotaExceeded(let quota, let limit, let used, let resetsAtMs, _):
            return "the daily quota \(quota) of \(limit) is reached (\(used) reserved today); no URL was issued; "
                + "it resets at \(ISO8601Timestamp.string(epochSeconds: resetsAtMs / 1000))"
        case .credentialsUnavailable(let left):
            return left > 0
                ? "the server's storage credentials expire in \(left) s, too soon for a URL; retry shortly"
                : "the server's storage credentials have expired; retry shortly"
        case .signingFailed: return "the URL could not be signed"
        case .configuration: return "the server's configuration cannot serve this"
        case .storage(.timeout): return "the object store did not answer in time"
        case .storage(.status): return "the object store refused the request"
        case .storage: return "the object store is not available"
        }
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

    /// A size refusal: `what` is over `limit`, upload type `type`'s `maxBytes` (named, as the setting that
    /// raises it), or, when `declared`, the size the URL was issued for.
    static func sizeRefusal(_ what: String, limit: Int64, type: String, declared: Bool) -> String {
        if declared {
            return what + "; its URL was issued for \(ByteCountText.of(limit)), the size declared for it (type \(type))"
        }
        return what + "; type \(type) allows at most \(ByteCountText.of(limit)) "
            + "(the setting \(ByteCountText.maxBytesSetting(of: type)) raises it)"
    }

    /// The most characters of a stored content type repeated in an error message.
    static let maxShownContentType = 100
}
