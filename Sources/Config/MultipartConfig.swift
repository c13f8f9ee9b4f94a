/// The `multipart` section: the native multipart API for apps (`POST /uploads`), off unless `enabled`.
/// Its uploads share the Companion routes' ledger and janitor (`uppy.abortAfterSeconds`).
public struct MultipartConfig: Sendable, Equatable {
    /// Whether `/uploads` is served.
    public var enabled: Bool
    /// The lifetime asked for every part URL signed up front, in seconds (6 h: a background transfer's;
    /// never past the signing credentials' expiry).
    public var backgroundUrlSeconds: Int
    /// How long after its last part the server completes an upload storage holds whole, in seconds.
    public var autoCompleteAfterSeconds: Int
    /// How often the server looks at one open upload, in seconds (one ListParts each).
    public var checkEverySeconds: Int
    /// The most parts an upload may be cut into (S3's 10,000 at most).
    public var maxParts: Int

    /// The settings; every argument defaults to the documented default.
    public init(
        enabled: Bool = false, backgroundUrlSeconds: Int = 21_600, autoCompleteAfterSeconds: Int = 60,
        checkEverySeconds: Int = 30, maxParts: Int = 10_000
    ) {
        self.enabled = enabled
        self.backgroundUrlSeconds = backgroundUrlSeconds
        self.autoCompleteAfterSeconds = autoCompleteAfterSeconds
        self.checkEverySeconds = checkEverySeconds
        self.maxParts = maxParts
    }
}
