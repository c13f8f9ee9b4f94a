import Foundation
import ObjectStore
import Records
import Synchronization
import System
import TestSupport
import Testing
import UploadsTestSupport

@testable import Uploads

/// The janitor's claims outlive a delete that takes longer than their lease: renewed while it runs, so no
/// other claimant takes the intent over while its objects are deleted (issue 22).
@Suite("Janitor claim renewal")
struct ClaimRenewalTests {
    @Test("a delete longer than the lease: the janitor's claim is renewed, another claimant finds it held")
    func janitorRenewsDuringSlowDelete() throws {
        let h = try LifecycleHarness()
        let clock = ManualClock(LifecycleHarness.now)
        let lease: Int64 = 1000
        let key = "slow/delete.jpg"
        try h.store.putIntents([
            UploadIntent(
                ownerId: "7", imageKey: key, objectKey: key, permanentKey: nil, type: "IMAGE",
                contentType: "image/jpeg", allowedContentTypes: ["image/jpeg"], maxBytes: 1000,
                createdAtMs: clock.now - 700_000, expiresAtMs: clock.now - 1)
        ])
        h.storage.put(key, bytes: LifecycleHarness.jpeg, contentType: "image/jpeg")
        let storage = GatedStorage(h.storage, holding: .every)
        let janitor = Janitor(
            store: h.store, storage: storage, deleteObjects: true, batchSize: 10, intervalMs: 60_000,
            env: UploadEnvironment(nowMillis: { clock.now }, newUUID: { UUID().uuidString }), events: { _ in },
            claimLeaseMs: lease, graceMs: 0)
        let sweeper = PThread(name: "test-sweep") { janitor.sweep() }
        var joined = false
        defer {
            if !joined {
                storage.release()
                sweeper.join()
            }
        }
        #expect(
            eventuallyBlocking { storage.deletes.load(ordering: .relaxed) == 1 }, "the janitor's DELETE is in flight")
        let claimedUntil = try #require(try h.store.claim(imageKey: key)).leaseUntilMs
        // Most of a lease passes while the DELETE hangs: the claim is extended from the new time.
        clock.advance(lease * 9 / 10)
        #expect(
            try eventuallyBlocking { (try h.store.claim(imageKey: key)?.leaseUntilMs ?? 0) >= clock.now + lease / 2 },
            "renewed while the delete runs (it was until \(claimedUntil))")
        // Past the first lease now: a confirmation of the key must still find it held.
        clock.advance(lease * 9 / 10)
        #expect(clock.now > claimedUntil)
        let other = try h.store.claimIntent(
            ClaimRequest(
                imageKey: key, intentCreatedAtMs: LifecycleHarness.now - 700_000, claimant: .confirm, token: "other",
                nowMs: clock.now, leaseMs: lease))
        guard case .held = other else {
            Issue.record("another claimant took the key over while the janitor deleted its object: \(other)")
            return
        }
        storage.release()
        sweeper.join()
        joined = true
        #expect(try h.store.claim(imageKey: key)?.state == .expired, "settled by the janitor")
        #expect(try h.store.intent(imageKey: key) == nil)
        #expect(!h.storage.keys.contains(key))
        #expect(janitor.intentsRemoved.load(ordering: .relaxed) == 1)
    }
}
