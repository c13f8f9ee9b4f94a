/// A width and height in pixels, as the image's header states them (before any rotation or crop).
public struct ImageSize: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Pixels per row.
    public let width: Int
    /// Rows.
    public let height: Int

    /// A size of `width` by `height` pixels.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// `WIDTHxHEIGHT`.
    public var description: String { "\(width)x\(height)" }
}
