/// What settling a claim with a record did (`ClaimStore.recordClaimed`), per record.
public enum ClaimFinish: Sendable, Equatable {
    /// The record is durable and the claim `recorded`: this call inserted it, or an earlier attempt of the
    /// same record (same id) whose answer was lost.
    case recorded(ImageRecord)
    /// The key already had another record (made outside the claims, e.g. by an older build): this one. The
    /// claim is marked `recorded` with it.
    case existing(ImageRecord)
    /// The token no longer holds the claim (taken over, or never held): nothing was written. The current
    /// claim, if any, says who holds it now.
    case fenced(IntentClaim?)
}
