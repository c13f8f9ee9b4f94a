/// What a quota reservation came to (`QuotaStore.putIntents(_:reserving:)`), in the order of the intents.
public enum QuotaOutcome: Sendable, Equatable {
    /// Which daily quota.
    public enum Quota: String, Sendable, Equatable {
        /// Uploads per day.
        case uploadsPerDay
        /// Bytes per day.
        case bytesPerDay
    }

    /// The intent is stored (with its reservation, when it asked for one).
    case stored
    /// The intent is not stored: reserving it would pass `quota`'s `limit` (`used` is what the owner has
    /// reserved that day); it resets at `resetsAtMs` (the next UTC midnight).
    case exceeded(quota: Quota, limit: Int64, used: Int64, resetsAtMs: Int64)
}
