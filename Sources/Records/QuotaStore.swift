/// Per-user daily quotas reserved with the intent (schema version 8): uploads and bytes per UTC day,
/// reserved in the intent's own commit and released when the intent expires unconfirmed.
public protocol QuotaStore: Sendable {
    /// Stores `intents` as `RecordStore.putIntents` does, in ONE transaction that first reserves each
    /// intent's quota (`reserving[i]`, nil: none asked): an intent whose reservation would pass a quota is
    /// not stored and is `.exceeded`; the others are `.stored`. A re-issued image key moves its
    /// reservation (the old one is released first), so a retry never counts twice. Outcomes in order.
    func putIntents(_ intents: [UploadIntent], reserving: [QuotaRequest?]) throws(RecordsError) -> [QuotaOutcome]

    /// Releases the reservations of these image keys (their intents expired unconfirmed): each owner's day
    /// gets its upload and bytes back. Absent keys are ignored; how many were released.
    func releaseQuotas(imageKeys: [String]) throws(RecordsError) -> Int

    /// What `ownerId` has reserved in the day starting at `dayStartMs`.
    func quotaUsage(ownerId: String, dayStartMs: Int64) throws(RecordsError) -> QuotaUsage

    /// Removes up to `limit` reservations and usage rows of days that started before `beforeDayMs`.
    func pruneQuotas(beforeDayMs: Int64, limit: Int) throws(RecordsError) -> Int
}
