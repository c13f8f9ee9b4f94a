/// The pure decision of a quota reservation, shared by every store (each runs it inside its transaction).
package enum QuotaPlan {
    /// The outcome of reserving `request` for an owner whose day holds `usage`, when the image key already
    /// holds a reservation `previous` (its day and bytes) that this one would replace.
    package static func decide(_ request: QuotaRequest, usage: QuotaUsage, previous: (dayStartMs: Int64, bytes: Int64)?)
        -> QuotaOutcome
    {
        var uploads = usage.uploads
        var bytes = usage.bytes
        if let previous, previous.dayStartMs == request.dayStartMs {
            uploads -= 1
            bytes -= previous.bytes
        }
        let resets = request.dayStartMs + QuotaRequest.dayMs
        if let limit = request.uploadsPerDay, uploads + 1 > limit {
            return .exceeded(quota: .uploadsPerDay, limit: limit, used: max(0, uploads), resetsAtMs: resets)
        }
        if let limit = request.bytesPerDay, bytes + request.bytes > limit {
            return .exceeded(quota: .bytesPerDay, limit: limit, used: max(0, bytes), resetsAtMs: resets)
        }
        return .stored
    }
}
