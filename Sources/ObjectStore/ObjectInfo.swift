/// What the store says about one object: its size, content type and entity tag.
public struct ObjectInfo: Sendable, Equatable {
    /// The object's size in bytes (for a ranged GET, the whole object's, from `Content-Range`).
    public var size: Int64
    /// The `Content-Type` stored with the object, when the store sent one.
    public var contentType: String?
    /// The entity tag without its quotes (an MD5 hex digest for single-part uploads).
    public var etag: String

    /// An object description from its parts.
    public init(size: Int64, contentType: String?, etag: String) {
        self.size = size
        self.contentType = contentType
        self.etag = etag
    }
}
