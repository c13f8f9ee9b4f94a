/// A per-user daily quota reservation asked for with an intent (`QuotaStore.putIntents(_:reserving:)`).
public struct QuotaRequest: Sendable, Equatable {
    /// The intent's image key (a re-issue of the key replaces its reservation instead of adding one).
    public let imageKey: String
    /// Whose quota.
    public let ownerId: String
    /// The bytes reserved: the declared size, else the type's `maxBytes`.
    public let bytes: Int64
    /// The UTC day the reservation counts in (epoch ms of its midnight).
    public let dayStartMs: Int64
    /// Most uploads an owner may reserve in a day; nil: no such quota.
    public let uploadsPerDay: Int64?
    /// Most bytes an owner may reserve in a day; nil: no such quota.
    public let bytesPerDay: Int64?

    /// A request; `dayStartMs` is the UTC midnight at or before the issue time.
    public init(
        imageKey: String, ownerId: String, bytes: Int64, dayStartMs: Int64, uploadsPerDay: Int64?, bytesPerDay: Int64?
    ) {
        self.imageKey = imageKey
        self.ownerId = ownerId
        self.bytes = bytes
        self.dayStartMs = dayStartMs
        self.uploadsPerDay = uploadsPerDay
        self.bytesPerDay = bytesPerDay
    }

    /// The UTC midnight at or before `nowMs`.
    public static func dayStart(of nowMs: Int64) -> Int64 {
        nowMs - ((nowMs % QuotaRequest.dayMs) + QuotaRequest.dayMs) % QuotaRequest.dayMs
    }

    /// One day in milliseconds.
    public static let dayMs: Int64 = 86_400_000
}
