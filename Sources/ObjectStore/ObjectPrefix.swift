/// The first bytes of an object, and what the store says about the whole object.
public struct ObjectPrefix: Sendable, Equatable {
    /// The object's leading bytes: all of it when it is no longer than the bytes asked for.
    public var bytes: [UInt8]
    /// The whole object's size (from `Content-Range`), content type and ETag.
    public var info: ObjectInfo

    /// A prefix from its parts.
    public init(bytes: [UInt8], info: ObjectInfo) {
        self.bytes = bytes
        self.info = info
    }

    /// True when `bytes` is the whole object.
    public var isWholeObject: Bool { Int64(bytes.count) == info.size }
}
