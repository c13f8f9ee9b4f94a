/// Token buckets shared by every instance on one database (schema version 8), for rate limits that hold
/// across instances. Instances account in batches: each sends what it consumed per key every sync
/// interval and reads back the buckets, so a request never waits for the database (docs/operations.md,
/// "Running several instances", has the slack this leaves).
public protocol RateBucketStore: Sendable {
    /// In ONE transaction: notes `instanceId` as seen at `nowMs`, counts the instances seen within
    /// `liveWithinMs`, and charges each usage to its bucket: a new bucket starts full (`burst`), a known
    /// one first refills at `perMinute` for the time since its last charge (at most to `burst`), then
    /// loses `consumed` (down to at most `-burst`). Keys are charged in byte order, so instances charging
    /// overlapping keys at once do not deadlock.
    func syncRateBuckets(instanceId: String, nowMs: Int64, liveWithinMs: Int64, usage: [RateUsage])
        throws(RecordsError) -> RateSyncResult

    /// Removes up to `limit` buckets that are full again at `nowMs` (forgetting a full bucket is the same
    /// as keeping it) and instances not seen since `nowMs - forgetInstancesAfterMs`; how many buckets.
    func pruneRateBuckets(nowMs: Int64, forgetInstancesAfterMs: Int64, limit: Int) throws(RecordsError) -> Int
}
