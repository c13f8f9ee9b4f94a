/// What the refresher reports, for the log and metrics; never a key or token.
public enum RefreshEvent: Sendable, Equatable {
    /// New credentials are held (`changed` false when the provider answered with the same ones);
    /// times in epoch seconds, nil when they do not expire or will not be refreshed.
    case refreshed(provider: String, changed: Bool, expiration: Int64?, nextRefresh: Int64?)
    /// A refresh failed (a warning): the credentials held stay in use until `heldExpiration`
    /// (nil: none held or they do not expire); the next try is at `retryAt`.
    case refreshFailed(
        provider: String, error: CredentialsError, consecutiveFailures: Int, retryAt: Int64, heldExpiration: Int64?)
    /// The credentials held have expired with no replacement: signing stops until a refresh works.
    case expired(provider: String, expiration: Int64)
}
