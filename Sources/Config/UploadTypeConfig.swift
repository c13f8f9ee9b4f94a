/// One upload type (`PROFILE`, `IMAGE`, …): what may be uploaded and under which object key.
///
/// Templates are made of lower-case literal characters `[a-z0-9/_.-]` and the variables
/// `{userId}`, `{uuid}`, `{epochMillis}`, `{ext}`, `{chatroomId}`, `{imageKey}` and `{filename}` (the multipart routes' file name as a slug).
public struct UploadTypeConfig: Sendable, Equatable {
    /// The name clients send (`type=PROFILE`).
    public var name: String
    /// Accepted file extensions, lower case; empty means the type takes no `ext`.
    public var extensions: [String]
    /// Accepted content types, lower case.
    public var contentTypes: [String]
    /// Template of the object key a URL is issued for.
    public var keyTemplate: String
    /// Template of the key the object is copied to on confirmation; nil (empty in the file) means no
    /// promotion.
    public var permanentKeyTemplate: String?
    /// Largest accepted object, in bytes.
    public var maxBytes: Int64
    /// Lifetime of an upload URL of this type, in seconds.
    public var expiresSeconds: Int
    /// Whether requests must carry a `chatroomId`.
    public var requiresChatroomId: Bool

    /// An upload type.
    public init(
        name: String, extensions: [String], contentTypes: [String], keyTemplate: String,
        permanentKeyTemplate: String? = nil, maxBytes: Int64, expiresSeconds: Int = 600,
        requiresChatroomId: Bool = false
    ) {
        self.name = name
        self.extensions = extensions
        self.contentTypes = contentTypes
        self.keyTemplate = keyTemplate
        self.permanentKeyTemplate = permanentKeyTemplate
        self.maxBytes = maxBytes
        self.expiresSeconds = expiresSeconds
        self.requiresChatroomId = requiresChatroomId
    }
}
