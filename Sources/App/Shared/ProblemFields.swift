import Uploads

/// The member names a route's requests use, so that an upload type's problems are reported on the
/// fields the client sent (the native names, or a compatibility route's).
struct ProblemFields: Sendable {
    /// The member naming the type.
    var type = "type"
    /// The member with the extension.
    var ext = "ext"
    /// The member with the chat room id; nil when the request has none (an issue for a client-chosen
    /// key), so a type that requires one is reported on `type`.
    var chatroomId: String? = "chatroomId"
    /// The member with the content type.
    var contentType = "contentType"
    /// The member with the key (a confirmation's).
    var key = "imageKey"

    /// The native API's names.
    static let native = ProblemFields()

    /// The most characters of a request's value repeated in a message.
    static let maxQuoted = 64

    /// `value` in double quotes, cut to `maxQuoted` characters (a request's own words, bounded).
    static func quoted(_ value: String) -> String {
        value.count > maxQuoted ? "\"\(value.prefix(maxQuoted))…\"" : "\"\(value)\""
    }

    /// The field and message of `problem`.
    func entry(_ problem: UploadProblem) -> (field: String, message: String) {
        switch problem {
        case .typeMissing: return (type, "\(type) is required")
        case .unknownType(let name, let known):
            guard !known.isEmpty else { return (type, "unknown type") }
            return (type, "unknown type \(ProblemFields.quoted(name)); the types are " + known.joined(separator: ", "))
        case .extensionMissing: return (ext, "\(ext) is required")
        case .extensionNotAllowed(_, _, let allowed):
            return (ext, "\(ext) must be one of " + allowed.joined(separator: ", "))
        case .chatroomIdNotNumeric: return (chatroomId ?? "chatroomId", "chatroomId must be a number")
        case .chatroomIdRequired(let name):
            guard let chatroomId else {
                return (type, "type \(name) requires a chatroomId: issue it with GET /presigned-url")
            }
            return (chatroomId, "chatroomId is required for type \(name)")
        case .contentTypeNotAllowed(_, _, let allowed):
            return (contentType, "\(contentType) must be one of " + allowed.joined(separator: ", "))
        case .sizeOverLimit(_, let type, let limit):
            return (
                "size",
                "size must be at most \(ByteCountText.of(limit)), the limit of type \(type) "
                    + "(the setting \(ByteCountText.maxBytesSetting(of: type)) raises it)"
            )
        case .sizeMalformed: return ("size", "size must be a whole number of bytes")
        case .sizeNegative(let n): return ("size", "size must not be negative (got \(n))")
        case .sizeEmpty(let type): return ("size", "size must be at least 1 byte: type \(type) holds images")
        case .sizeOverMaximum:
            return ("size", "size must be at most \(ByteCountText.of(DeclaredContent.maxSize)), S3's largest object")
        case .digestMalformed(let digest, let reason):
            return (
                digest.member,
                "\(digest.member) must be the base64 of the \(digest.algorithm) of the bytes "
                    + "(\(digest.byteCount) bytes): \(reason)"
            )
        case .keyUnrenderable: return ("type", "the key for this type cannot be built from these values")
        case .typeNotAccepted(_, let accepted):
            return (key, "\(key) must be an upload of type " + accepted.joined(separator: " or "))
        }
    }
}

extension FieldErrors {
    /// The field errors of `problems`, on the members `fields` names.
    init(_ problems: [UploadProblem], fields: ProblemFields) {
        self.init()
        for p in problems {
            let (field, message) = fields.entry(p)
            add(field, message)
        }
    }

    /// `parsed` (what a front door found wrong with the members' form) and `problems` (what the type's
    /// rules found) as one list, in the order of `order` (the request's members); a member's form error
    /// wins over a rule's.
    init(parsed: FieldErrors, problems: [UploadProblem], fields: ProblemFields, order: [String]) {
        let rules = FieldErrors(problems, fields: fields)
        self.init()
        for name in order {
            if let m = parsed.message(for: name) ?? rules.message(for: name) { add(name, m) }
        }
        for e in parsed.list + rules.list { add(e.field, e.message) }
    }

    /// The message of `field`, if it has one.
    func message(for field: String) -> String? { list.first { $0.field == field }?.message }
}
