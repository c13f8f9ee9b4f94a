import Foundation
import TestSupport
import Testing

@testable import Records

/// The contract of `QuotaStore` (schema version 8), on every store: reservations with the intents' own
/// commit, per owner and UTC day; a refused reservation stores no intent; re-issues do not count twice;
/// releases give the day back.
@Suite(.blocking) struct QuotaStoreConformanceTests {
    /// Noon of a UTC day (its midnight is `QuotaRequest.dayStart`).
    static let noon: Int64 = 1_700_000_000_000 - 1_700_000_000_000 % 86_400_000 + 43_200_000

    /// A request for `intent` with the given quotas.
    static func request(_ intent: UploadIntent, bytes: Int64 = 1_000, uploads: Int64? = 3, bytesPerDay: Int64? = nil)
        -> QuotaRequest
    {
        QuotaRequest(
            imageKey: intent.imageKey, ownerId: intent.ownerId, bytes: bytes,
            dayStartMs: QuotaRequest.dayStart(of: noon), uploadsPerDay: uploads, bytesPerDay: bytesPerDay)
    }

    /// The day starts at UTC midnight, also before 1970.
    @Test func daysStartAtUTCMidnight() {
        #expect(QuotaRequest.dayStart(of: 86_400_000 * 3 + 5) == 86_400_000 * 3)
        #expect(QuotaRequest.dayStart(of: 86_400_000 * 3) == 86_400_000 * 3)
        #expect(QuotaRequest.dayStart(of: -1) == -86_400_000)
    }

    /// Uploads per day: three go, the fourth is refused with the quota, its limit, the use and the next
    /// midnight, and its intent is not stored; another owner is not affected.
    @Test(arguments: StoreKind.kinds)
    func uploadsPerDayHold(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.shared
        let owner = "owner-\(Sample.uuid())"
        let intents = (0..<4).map { _ in Sample.intent(owner: owner) }
        let outcomes = try store.putIntents(intents, reserving: intents.map { Self.request($0) })
        let midnight = QuotaRequest.dayStart(of: Self.noon) + 86_400_000
        #expect(
            outcomes == [
                .stored, .stored, .stored,
                .exceeded(quota: .uploadsPerDay, limit: 3, used: 3, resetsAtMs: midnight),
            ])
        #expect(try store.intent(imageKey: intents[3].imageKey) == nil)
        #expect(try store.intent(imageKey: intents[2].imageKey) != nil)
        #expect(
            try store.quotaUsage(ownerId: owner, dayStartMs: QuotaRequest.dayStart(of: Self.noon))
                == QuotaUsage(uploads: 3, bytes: 3_000))
        let other = Sample.intent()
        #expect(try store.putIntents([other], reserving: [Self.request(other)]) == [.stored])
        // An intent without a request is stored as putIntents stores it.
        let free = Sample.intent(owner: owner)
        #expect(try store.putIntents([free], reserving: [nil]) == [.stored])
        #expect(try store.intent(imageKey: free.imageKey) != nil)
    }

    /// Bytes per day count the reserved size; a re-issue of a key moves its reservation instead of adding
    /// one; a release gives the upload and its bytes back, once.
    @Test(arguments: StoreKind.kinds)
    func bytesReissuesAndReleases(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.shared
        let owner = "owner-\(Sample.uuid())"
        let day = QuotaRequest.dayStart(of: Self.noon)
        let a = Sample.intent(owner: owner)
        let b = Sample.intent(owner: owner)
        #expect(
            try store.putIntents([a], reserving: [Self.request(a, bytes: 600, uploads: nil, bytesPerDay: 1_000)]) == [
                .stored
            ])
        // 600 + 500 would pass 1,000.
        #expect(
            try store.putIntents([b], reserving: [Self.request(b, bytes: 500, uploads: nil, bytesPerDay: 1_000)]) == [
                .exceeded(quota: .bytesPerDay, limit: 1_000, used: 600, resetsAtMs: day + 86_400_000)
            ])
        // Re-issuing a with 900 replaces its 600.
        #expect(
            try store.putIntents([a], reserving: [Self.request(a, bytes: 900, uploads: 1, bytesPerDay: 1_000)]) == [
                .stored
            ])
        #expect(try store.quotaUsage(ownerId: owner, dayStartMs: day) == QuotaUsage(uploads: 1, bytes: 900))
        // The intent expired unconfirmed: released, once.
        #expect(try store.releaseQuotas(imageKeys: [a.imageKey, "never-reserved"]) == 1)
        #expect(try store.releaseQuotas(imageKeys: [a.imageKey]) == 0)
        #expect(try store.quotaUsage(ownerId: owner, dayStartMs: day) == QuotaUsage(uploads: 0, bytes: 0))
        #expect(
            try store.putIntents([b], reserving: [Self.request(b, bytes: 500, uploads: 1, bytesPerDay: 1_000)]) == [
                .stored
            ])
        // Old days are pruned.
        #expect(try store.pruneQuotas(beforeDayMs: day + 86_400_000, limit: 100) == 2)
        #expect(try store.quotaUsage(ownerId: owner, dayStartMs: day) == QuotaUsage(uploads: 0, bytes: 0))
    }

    /// A mismatched call is refused.
    @Test(arguments: StoreKind.kinds)
    func requestsMustMatchIntents(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        #expect(throws: RecordsError.self) { try test.shared.putIntents([Sample.intent()], reserving: []) }
    }

    /// Eight threads on two store objects (two instances) reserve for one owner at once, 5 intents each,
    /// with a quota of 12: exactly 12 are stored, 28 refused.
    @Test(arguments: StoreKind.databases)
    func concurrentReservationsHoldTheQuota(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let stores: [any SharedStateStore] = [test.shared, try test.reopen() as! any SharedStateStore]
        let owner = "owner-\(Sample.uuid())"
        let outcomes = Collector<QuotaOutcome>()
        runConcurrently(8) { index in
            for _ in 0..<5 {
                let intent = Sample.intent(owner: owner)
                do {
                    for outcome in try stores[index % 2].putIntents(
                        [intent], reserving: [Self.request(intent, uploads: 12)])
                    {
                        outcomes.append(outcome)
                    }
                } catch {
                    Issue.record("reservation failed: \(error)")
                }
            }
        }
        #expect(outcomes.values.filter { $0 == .stored }.count == 12)
        #expect(outcomes.values.count == 40)
        #expect(
            try stores[0].quotaUsage(ownerId: owner, dayStartMs: QuotaRequest.dayStart(of: Self.noon)).uploads == 12)
    }
}
