/// Why a confirmation refused an uploaded object for what its bytes are (the object is deleted and
/// nothing is recorded): the one kind of refusal the lifecycle reports as a rejected upload
/// (`Confirmer.reject`, `LifecycleEvent.contentRefused` and `.checksumRefused`).
public enum UploadRejection: Sendable, Equatable {
    /// Its first bytes are no image of a format the type allows (the content check).
    case content(ContentMismatch)
    /// Its bytes are not those the client declared (their digest differs).
    case checksum(ChecksumMismatch)

    /// Its stable code, as `upload.rejected` events carry it.
    public var reason: String {
        switch self {
        case .content: return "CONTENT_MISMATCH"
        case .checksum: return "CHECKSUM_MISMATCH"
        }
    }

    /// One sentence for the client and the event.
    public var message: String {
        switch self {
        case .content(let mismatch): return mismatch.message
        case .checksum(let mismatch): return mismatch.message
        }
    }

    /// The lifecycle's error for it.
    public var error: UploadError {
        switch self {
        case .content(let mismatch): return .contentMismatch(mismatch)
        case .checksum(let mismatch): return .checksumMismatch(mismatch)
        }
    }
}
