/// One rule of an upload type that a request breaks, with the values its message needs. Which field
/// it belongs to, and how it reads, is each front door's to say.
public enum UploadProblem: Sendable, Equatable {
    /// No type is named.
    case typeMissing
    /// No configured type has this name (or, issuing by type, the type takes no extension); `known` are
    /// the types the request could have named, in configuration order.
    case unknownType(String, known: [String])
    /// No extension is given.
    case extensionMissing
    /// The extension is not one of the type's.
    case extensionNotAllowed(String, type: String, allowed: [String])
    /// A `chatroomId` is given and is not a number.
    case chatroomIdNotNumeric
    /// The type's `chatroomId` rule is `required`, and none is given.
    case chatroomIdRequired(type: String)
    /// The content type is not one of the type's.
    case contentTypeNotAllowed(String, type: String, allowed: [String])
    /// The declared size is over the type's limit (its `maxBytes`).
    case sizeOverLimit(Int64, type: String, limit: Int64)
    /// The declared size is not a whole number of bytes.
    case sizeMalformed
    /// The declared size is negative.
    case sizeNegative(Int64)
    /// The declared size is 0, and the type holds images (an empty file is none).
    case sizeEmpty(type: String)
    /// The declared size is over S3's largest object (5 TiB, `DeclaredContent.maxSize`).
    case sizeOverMaximum
    /// A declared digest is not the canonical base64 of its bytes; `reason` says how (`DeclaredDigest.problem`).
    case digestMalformed(DeclaredDigest, reason: String)
    /// The type's key template cannot be filled from the request's values.
    case keyUnrenderable(type: String)
    /// The upload is of a type the operation does not take (a compatibility route's `types`).
    case typeNotAccepted(String, accepted: [String])
}

extension UploadProblem {
    /// Whether the problem is with what the client declared of its object (its size, its digests).
    public var isDeclaredContent: Bool {
        switch self {
        case .sizeOverLimit, .sizeMalformed, .sizeNegative, .sizeEmpty, .sizeOverMaximum, .digestMalformed: return true
        default: return false
        }
    }
}
