import ObjectStore
import Records

/// Everything the upload lifecycle refuses or fails with, each case carrying what its answer needs.
///
/// Nothing here knows HTTP: the front doors map these to their own dialect (the native
/// `{"code","message"}`, an app's envelope, Companion's `{"error","code"}`).
public enum UploadError: Error, Sendable, Equatable {
    /// The request breaks its upload type's rules: every problem found, in the order of the fields.
    case rejected([UploadProblem])
    /// A new URL for a recorded key would let its confirmed object be overwritten.
    case keyAlreadyRecorded
    /// The key was issued to another owner, and that URL has not expired.
    case keyInUse
    /// Another owner recorded this key.
    case recordedByAnotherUser
    /// No URL was issued for the key (or its intent has been swept).
    case intentNotFound
    /// The key was issued to another owner.
    case issuedToAnotherUser
    /// The intent expired unconfirmed and the janitor settled it (its objects may be gone): ask for a new URL.
    case intentExpired
    /// Another confirmation (or the store's event) of the key holds its claim and has not finished within
    /// the wait: retry after `retryAfterSeconds`; nothing was moved by this one.
    case confirmationInProgress(retryAfterSeconds: Int)
    /// The multipart upload was never issued to the caller, is another caller's, has expired, or storage
    /// no longer knows it (aborted, completed): the same answer in every case.
    case noSuchUpload
    /// The URL was issued, and nothing is in storage under it; `expiredAtMs` is set when the URL has
    /// expired too (nothing can be uploaded with it any more), nil while it can still be used.
    case imageNotUploaded(expiredAtMs: Int64?)
    /// The stored object's size, over the intent's `limit` (the object was deleted): the `maxBytes` of
    /// upload type `type`, or, when `declared`, the smaller size the URL was issued for.
    case imageTooLarge(size: Int64, limit: Int64, type: String, declared: Bool)
    /// What storage holds (nil: no content type) against what the type allows (the object was deleted).
    case contentTypeNotAllowed(stored: String?, type: String, allowed: [String])
    /// The object's first bytes are no image of a format the type allows (the object was deleted).
    case contentMismatch(ContentMismatch)
    /// The object's bytes are not those the client declared (their digest differs; the object was
    /// deleted, nothing recorded).
    case checksumMismatch(ChecksumMismatch)
    /// The object's size differs from the size declared when the URL was issued (the object was deleted).
    case sizeMismatch(size: Int64, declared: Int64)
    /// The owner has no record with this id.
    case recordNotFound
    /// The record is `scanning`: it has no URL until its scan publishes it (docs/scanning.md).
    case scanPending
    /// A completion names part `partNumber`, which was not uploaded or whose ETag differs.
    case partNotUploaded(partNumber: Int)
    /// Part `partNumber` is over S3's largest part (5 GiB).
    case partTooLarge(partNumber: Int)
    /// Part `partNumber` is under S3's smallest part (5 MiB) and is not the last.
    case partTooSmall(partNumber: Int)
    /// The parts add up to `size` bytes, more than `limit`, the `maxBytes` of upload type `type`.
    case uploadTooLarge(size: Int64, limit: Int64, type: String)
    /// The parts add up to `size` bytes, not the `declared` size the upload was created with.
    case partsSizeMismatch(size: Int64, declared: Int64)
    /// The intent writer's queue is full (the database is down or far behind): no URL is issued, since
    /// a URL whose intent is lost can never be confirmed.
    case intentsBacklogged
    /// The URL's intent was not stored within `records.intentCommitTimeoutMs` (the database is down,
    /// stalled or far behind): no URL is answered, since one whose intent is not stored could be lost.
    case intentNotStored
    /// The owner's daily `quota` (`uploadsPerDay` or `bytesPerDay`) has `used` of its `limit` and this
    /// URL would pass it; no URL was issued. It resets at `resetsAtMs` (the next UTC midnight),
    /// `retryAfterSeconds` after the request.
    case quotaExceeded(quota: String, limit: Int64, used: Int64, resetsAtMs: Int64, retryAfterSeconds: Int)
    /// The storage credentials have `secondsLeft` seconds of life (0: expired), too few for a URL.
    case credentialsUnavailable(secondsLeft: Int)
    /// The URL could not be signed.
    case signingFailed
    /// The records store failed.
    case store(RecordsError)
    /// A call to storage failed.
    case storage(ObjectStoreError)
    /// A configured upload type cannot be used (the key path of the value; start-up only).
    case configuration(String)
}

extension UploadError {
    /// `body`, with a records-store failure as `.store`.
    static func storing<T>(_ body: () throws(RecordsError) -> T) throws(UploadError) -> T {
        do {
            return try body()
        } catch {
            throw .store(error)
        }
    }

    /// `body`, with a storage failure as `.storage`.
    static func calling<T>(_ body: () throws(ObjectStoreError) -> T) throws(UploadError) -> T {
        do {
            return try body()
        } catch {
            throw .storage(error)
        }
    }
}
