/// When a record's read URL is signed and how long it lives (`presign.readUrlWindowSeconds`,
/// `presign.readUrlExpiresSeconds`).
///
/// The signing instant (`X-Amz-Date`) is the start of the window that holds now, and the URL lives
/// the window plus `lifeSeconds` from it: every read within one window signs the same instant with
/// the same lifetime, so it answers the byte-identical URL (on any instance with the same
/// credentials), and every URL answered has at least `lifeSeconds` left. A window of 0 signs at the
/// current second for `lifeSeconds`. Pure.
public struct ReadWindow: Sendable, Equatable {
    /// The window's length in seconds; 0 signs every URL at the current second.
    public let windowSeconds: Int
    /// The least life a URL has left when it is answered, in seconds.
    public let lifeSeconds: Int

    /// A window of `windowSeconds` (0: none) for URLs with at least `lifeSeconds` left; the window is
    /// shortened so that it and the life fit in SigV4's 7 days (a life of 7 days leaves no window).
    public init(windowSeconds: Int, lifeSeconds: Int) {
        precondition(windowSeconds >= 0 && lifeSeconds >= 1, "a window is not negative and a URL lives")
        self.lifeSeconds = min(lifeSeconds, Self.maximumLifetimeSeconds)
        self.windowSeconds = min(windowSeconds, Self.maximumLifetimeSeconds - self.lifeSeconds)
    }

    /// The signing instant and the lifetime (SigV4's `X-Amz-Expires`, within its 7 days) of a URL read
    /// at `now` (epoch seconds).
    public func signing(at now: Int64) -> (signedAt: Int64, expires: Int) {
        guard windowSeconds > 0 else { return (now, lifeSeconds) }
        let window = Int64(windowSeconds)
        let offset = ((now % window) + window) % window
        return (now - offset, windowSeconds + lifeSeconds)
    }

    /// SigV4's longest presigned URL: 7 days.
    public static let maximumLifetimeSeconds = 604_800
}
