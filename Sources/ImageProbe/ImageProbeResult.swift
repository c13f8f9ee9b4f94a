/// What the decoder found in an object's leading bytes: an allowed image, or why it is not one.
public enum ImageProbeResult: Sendable, Equatable {
    /// An allowed image format with a well-formed header.
    case image(DetectedImage)
    /// Not an allowed image, with the reason.
    case notImage(ImageRefusal)

    /// The detected image, or nil.
    public var image: DetectedImage? {
        if case .image(let image) = self { return image }
        return nil
    }

    /// The refusal, or nil.
    public var refusal: ImageRefusal? {
        if case .notImage(let refusal) = self { return refusal }
        return nil
    }
}
