/// The bounds the image-header decoder works within, whatever the input declares.
public struct ImageProbeLimits: Sendable, Equatable {
    /// Most leading bytes examined; bytes past them are treated as unseen (the object goes on).
    ///
    /// 64 KiB is what confirmation reads with one ranged GET.
    public var maxBytes: Int
    /// Most JPEG markers (segments and standalone markers) read before the frame header (over it: malformed).
    public var maxJPEGMarkers: Int
    /// Most ISO BMFF box headers read in one file, at every level together (over it: malformed).
    ///
    /// The walk enters only `meta` → `iprp` → `ipco`, so nesting depth is three by construction.
    public var maxBoxes: Int
    /// Leading bytes checked for binary bytes when telling plain text from unknown data.
    public var textWindow: Int

    /// Limits with the defaults: 64 KiB, 1024 JPEG markers, 1024 boxes, a 1024-byte text window.
    public init(maxBytes: Int = 65536, maxJPEGMarkers: Int = 1024, maxBoxes: Int = 1024, textWindow: Int = 1024) {
        precondition(maxBytes >= 1 && maxBytes <= 1 << 30, "ImageProbeLimits: maxBytes must be 1...2^30")
        precondition(maxJPEGMarkers >= 1 && maxBoxes >= 1, "ImageProbeLimits: counts must be positive")
        precondition(textWindow >= 1, "ImageProbeLimits: textWindow must be positive")
        self.maxBytes = maxBytes
        self.maxJPEGMarkers = maxJPEGMarkers
        self.maxBoxes = maxBoxes
        self.textWindow = textWindow
    }
}
