import Synchronization

extension RotatingPresigner {
    /// The lifetime to sign `requested` seconds with on `presigner` (take `current` once and sign with
    /// it) for a URL signed at `signedAt`, an instant at or before `now` (the start of a window, so that
    /// every request within it answers the same URL): at most SigV4's 7 days, and at most what the
    /// credentials have left after `signedAt`, so that the URL ends no later than they do.
    ///
    /// When the credentials shorten it, what is left at `now` must still be `minimumLifetimeSeconds`,
    /// else `credentialsExpiring` (counted in `refusalCount`). A URL signed at `signedAt` with this
    /// lifetime expires at `signedAt + lifetime`.
    public func lifetime(_ requested: Int, signedAt: Int64, now: Int64, on presigner: Presigner) throws(SigV4Error)
        -> Int
    {
        precondition(signedAt <= now, "a URL is signed at an instant not after now")
        let capped = min(requested, Self.maximumLifetimeSeconds)
        guard let expiration = presigner.credentialsExpiration else { return capped }
        let available = expiration - signedAt
        if available >= Int64(capped) { return capped }
        let left = expiration - now
        guard left >= Int64(minimumLifetimeSeconds) else {
            refusals.add(1, ordering: .relaxed)
            throw .credentialsExpiring(secondsLeft: Int(max(0, left)))
        }
        return Int(available)
    }

    /// SigV4's longest presigned URL: 7 days.
    public static let maximumLifetimeSeconds = 604_800
}
