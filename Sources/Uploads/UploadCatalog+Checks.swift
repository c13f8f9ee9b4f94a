import Config

/// What an issue by type asks for, checked: a server-made key of `type` with `ext`.
public struct NewUpload: Sendable {
    /// The type.
    public let type: UploadType
    /// The extension, lower case.
    public let ext: String
    /// The `chatroomId` sent (a number), if any.
    public let chatroomId: String?
    /// What the client declared of the object (size, digests), checked.
    public var declared = DeclaredContent.none
}

/// What an issue for a client-chosen key asks for, as a front door parsed it (nil: absent, or not of
/// the member's form, which the front door reports itself).
public struct KeyedRequest: Sendable {
    /// The type's name (the request's, or the route's default).
    public var typeName: String
    /// The content type to sign.
    public var contentType: String?
    /// The image key, canonical (a lower-case UUID).
    public var imageKey: String?
    /// The declared size and digests, as sent: the size is signed as `content-length` and kept as the
    /// intent's limit, a digest signed where storage checks it (`Issuer.digestHeaders`).
    public var declared: DeclaredInput
    /// The URL's lifetime when not the type's (a compatibility route's `expiresSeconds`).
    public var expiresSeconds: Int?

    /// A request from its members.
    public init(
        typeName: String, contentType: String?, imageKey: String?, declared: DeclaredInput = .none,
        expiresSeconds: Int? = nil
    ) {
        self.typeName = typeName
        self.contentType = contentType
        self.imageKey = imageKey
        self.declared = declared
        self.expiresSeconds = expiresSeconds
    }
}

/// An issue for a client-chosen key, checked.
public struct KeyedUpload: Sendable {
    /// The type.
    public let type: UploadType
    /// The content type to sign, lower case.
    public let contentType: String
    /// The image key, a lower-case UUID.
    public let imageKey: String
    /// The declared size and digests, checked.
    public let declared: DeclaredContent
    /// The URL's lifetime when not the type's.
    public let expiresSeconds: Int?
}

/// A browser upload's object (Uppy's `POST /s3/multipart` and `GET /s3/params`), as a front door parsed it.
public struct ObjectRequest: Sendable {
    /// The file's name (its slug fills `{filename}`).
    public var filename: String
    /// The media type, lower case, without parameters.
    public var mediaType: String
    /// The type's name.
    public var typeName: String
    /// The `chatroomId` given, if any.
    public var chatroomId: String?
    /// What the record keeps of the request's metadata (a JSON object), carried by the intent.
    public var metadataJSON: String?
    /// The declared size and digests, as sent (a multipart upload's `size` is refused over the type's
    /// limit before any part is sent).
    public var declared: DeclaredInput

    /// A request from its members.
    public init(
        filename: String, mediaType: String, typeName: String, chatroomId: String?, metadataJSON: String?,
        declared: DeclaredInput = .none
    ) {
        self.filename = filename
        self.mediaType = mediaType
        self.typeName = typeName
        self.chatroomId = chatroomId
        self.metadataJSON = metadataJSON
        self.declared = declared
    }
}

extension UploadCatalog {
    /// An issue by type (`GET /presigned-url`): the type is named, exists and takes extensions, the
    /// extension is one of them, a `chatroomId` sent is a number, and one is sent when the type requires
    /// it, and what it declares holds (`checkDeclared`). Every problem is reported, in that order.
    public func checkNew(typeName: String?, ext: String?, chatroomId: String?, declared: DeclaredInput = .none)
        throws(UploadError) -> NewUpload
    {
        var problems: [UploadProblem] = []
        let type = typeName.flatMap { self.type(named: $0) }
        if typeName == nil || typeName!.isEmpty {
            problems.append(.typeMissing)
        } else if type == nil || type!.config.extensions.isEmpty {
            problems.append(
                .unknownType(typeName!, known: types.filter { !$0.config.extensions.isEmpty }.map(\.config.name)))
        }
        let lowerExt = ext?.lowercased()
        if lowerExt == nil || lowerExt!.isEmpty {
            problems.append(.extensionMissing)
        } else if let type, !type.config.extensions.contains(lowerExt!) {
            problems.append(.extensionNotAllowed(lowerExt!, type: type.config.name, allowed: type.config.extensions))
        }
        // A chatroomId that is sent must be a number; a type whose rule is `required` needs one, the others
        // put a server-made UUID in the segment (client P's app never sends one).
        if let c = chatroomId, !c.isEmpty {
            if !UploadRules.isNumericId(c) { problems.append(.chatroomIdNotNumeric) }
        } else if let type, type.config.requiresChatroomId {
            problems.append(.chatroomIdRequired(type: type.config.name))
        }
        let (content, declaredProblems) = checkDeclared(declared, type: type)
        problems += declaredProblems
        guard problems.isEmpty, let type, let lowerExt else { throw .rejected(problems) }
        return NewUpload(type: type, ext: lowerExt, chatroomId: chatroomId, declared: content)
    }

    /// An issue for a client-chosen key (`POST /presigned-url`): the type exists and needs no
    /// `chatroomId` (such a request has none), the content type is one of the type's, and what it declares
    /// holds (`checkDeclared`). Returns the problems in that order, and the upload when there are none and
    /// no member is missing.
    public func checkKeyed(_ r: KeyedRequest) -> (upload: KeyedUpload?, problems: [UploadProblem]) {
        var problems: [UploadProblem] = []
        let type = self.type(named: r.typeName)
        if type == nil {
            problems.append(.unknownType(r.typeName, known: types.map(\.config.name)))
        } else if let type, type.config.requiresChatroomId {
            problems.append(.chatroomIdRequired(type: type.config.name))
        }
        var contentType: String?
        if let given = r.contentType {
            let lower = given.lowercased()
            if let type, !type.config.contentTypes.contains(lower) {
                problems.append(
                    .contentTypeNotAllowed(lower, type: type.config.name, allowed: type.config.contentTypes))
            } else {
                contentType = lower
            }
        }
        let (declared, declaredProblems) = checkDeclared(r.declared, type: type)
        problems += declaredProblems
        guard problems.isEmpty, let type, let contentType, let imageKey = r.imageKey else { return (nil, problems) }
        return (
            KeyedUpload(
                type: type, contentType: contentType, imageKey: imageKey, declared: declared,
                expiresSeconds: r.expiresSeconds),
            []
        )
    }

    /// A browser upload's object: the type exists, takes the media type, a `chatroomId` given is a number,
    /// and one is given when the type requires it, and what it declares holds (`checkDeclared`). The
    /// problems come in that order.
    public func checkObject(_ r: ObjectRequest) throws(UploadError) -> (
        type: UploadType, declared: DeclaredContent
    ) {
        guard let type = type(named: r.typeName) else {
            throw .rejected([.unknownType(r.typeName, known: types.map(\.config.name))])
        }
        var problems: [UploadProblem] = []
        if !type.config.contentTypes.contains(r.mediaType) {
            problems.append(
                .contentTypeNotAllowed(r.mediaType, type: type.config.name, allowed: type.config.contentTypes))
        }
        if let c = r.chatroomId, !UploadRules.isNumericId(c) { problems.append(.chatroomIdNotNumeric) }
        if type.config.requiresChatroomId && r.chatroomId == nil {
            problems.append(.chatroomIdRequired(type: type.config.name))
        }
        let (declared, declaredProblems) = checkDeclared(r.declared, type: type)
        problems += declaredProblems
        guard problems.isEmpty else { throw .rejected(problems) }
        return (type, declared)
    }

    /// A confirmation of an upload of `type` by an operation that takes only `accepted` types (all
    /// when empty).
    public static func checkAccepted(_ type: String, _ accepted: [String]) throws(UploadError) {
        guard accepted.isEmpty || accepted.contains(type) else {
            throw .rejected([.typeNotAccepted(type, accepted: accepted)])
        }
    }
}
