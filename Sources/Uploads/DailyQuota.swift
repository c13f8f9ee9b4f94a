import Records

/// The per-user daily quotas every issued intent is reserved against (`limits.uploadsPerUserPerDay`,
/// `limits.bytesPerUserPerDay`), in the intent's own commit: the store counts them, so every instance on
/// one store shares them.
public struct DailyQuota: Sendable, Equatable {
    /// Most uploads per owner per UTC day; nil: none.
    public let uploadsPerDay: Int64?
    /// Most bytes per owner per UTC day (declared sizes, else the types' `maxBytes`); nil: none.
    public let bytesPerDay: Int64?

    /// The quotas of the settings (0: none); nil when neither is set.
    public init?(uploadsPerDay: Int, bytesPerDay: Int) {
        guard uploadsPerDay > 0 || bytesPerDay > 0 else { return nil }
        self.uploadsPerDay = uploadsPerDay > 0 ? Int64(uploadsPerDay) : nil
        self.bytesPerDay = bytesPerDay > 0 ? Int64(bytesPerDay) : nil
    }

    /// The reservation `intent` asks for: its owner, its most bytes (`maxBytes` holds the declared size
    /// when there is one), the UTC day of its issue.
    public func request(for intent: UploadIntent) -> QuotaRequest {
        QuotaRequest(
            imageKey: intent.imageKey, ownerId: intent.ownerId, bytes: intent.maxBytes,
            dayStartMs: QuotaRequest.dayStart(of: intent.createdAtMs), uploadsPerDay: uploadsPerDay,
            bytesPerDay: bytesPerDay)
    }
}
