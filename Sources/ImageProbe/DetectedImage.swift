/// An object whose leading bytes are a well-formed header of an allowed image format.
public struct DetectedImage: Sendable, Equatable {
    /// The format the header belongs to.
    public let format: ImageFormat
    /// The pixel size, or nil when the part of the header that carries it lies past the bytes given
    /// (the object goes on beyond them).
    public let size: ImageSize?
    /// How many leading bytes this result depends on: other bytes after them cannot change it.
    ///
    /// Equal to the number of bytes given when `size` is nil.
    public let bytesUsed: Int

    /// A detected image.
    public init(format: ImageFormat, size: ImageSize?, bytesUsed: Int) {
        self.format = format
        self.size = size
        self.bytesUsed = bytesUsed
    }

    /// The media type of `format`.
    public var mimeType: String { format.mimeType }
}
