/// What became of an intent handed to `IntentWriter.submit`: the answer its URL may get.
public enum IntentOutcome: Sendable, Equatable {
    /// Committed to the store: the URL may be answered.
    case stored
    /// Not stored, and it will not be on this intent's account: the queue was full, the writer was
    /// shut down, or the store refused the intent itself (a bad value). Answer 503 (or the error's
    /// 4xx) without the URL.
    case refused(RecordsError)
    /// Not stored within the writer's `maxWaitMs` (the store is down, stalled or far behind). Answer 503
    /// with `Retry-After` without the URL; the intent may still land later, harmlessly (no URL names it).
    case timedOut
    /// Not stored: the owner's daily `quota` (`QuotaStore`) has `used` of its `limit`, and this intent's
    /// reservation would pass it; it resets at `resetsAtMs`. Answer 429 without the URL.
    case quotaExceeded(quota: QuotaOutcome.Quota, limit: Int64, used: Int64, resetsAtMs: Int64)

    /// True for `.stored`.
    public var isStored: Bool { self == .stored }
}
