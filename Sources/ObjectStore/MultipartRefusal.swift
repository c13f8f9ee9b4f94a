/// Why the store refused a multipart call, when the reason is the caller's to act on.
///
/// The raw value is S3's error code; `status` the status S3 answers it with, which a route can
/// pass on as its own 4xx.
public enum MultipartRefusal: String, Sendable, Equatable, CaseIterable {
    /// The upload ID is unknown: never created, aborted, or already completed (404).
    case noSuchUpload = "NoSuchUpload"
    /// A listed part was never uploaded, or its ETag does not match the stored part (400).
    case invalidPart = "InvalidPart"
    /// The parts of a completion are not in ascending part-number order (400).
    case invalidPartOrder = "InvalidPartOrder"
    /// A part other than the last is smaller than the store's minimum, 5 MiB on S3 (400).
    case entityTooSmall = "EntityTooSmall"

    /// The status S3 answers this refusal with.
    public var status: Int { self == .noSuchUpload ? 404 : 400 }

    /// The refusal S3's error `code` names, or nil for any other code.
    public init?(code: String?) {
        guard let code, let refusal = MultipartRefusal(rawValue: code) else { return nil }
        self = refusal
    }
}
