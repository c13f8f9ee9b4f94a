import Foundation
import TestSupport
import Testing

@testable import Records

/// Every store with the calls of schema version 8.
typealias SharedStateStore = RecordStore & LeaseStore & RateBucketStore & QuotaStore & MultipartLedger

extension TestStore {
    /// The store under test with its leases, shared buckets and quotas.
    var shared: any SharedStateStore { store as! any SharedStateStore }
}

/// The contract of `LeaseStore` (schema version 8), on every store (PostgreSQL also through PgBouncer in
/// transaction mode): one holder at a time, a token that grows on every takeover, writes fenced by it.
@Suite(.blocking) struct LeaseStoreConformanceTests {
    /// The first holder gets token 1; another holder is told who holds it and until when; the holder
    /// asking again extends its lease under the same token; renewal extends it too.
    @Test(arguments: StoreKind.kinds)
    func oneHolderAtATimeUnderOneToken(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.shared
        guard
            case .acquired(let first, tookOver: false) = try store.acquireLease(
                name: "janitor", holder: "a", nowMs: 1_000, ttlMs: 10_000)
        else { Issue.record("the first acquisition did not succeed"); return }
        #expect(first == Lease(name: "janitor", holder: "a", token: 1, expiresAtMs: 11_000, acquiredAtMs: 1_000))
        #expect(try store.acquireLease(name: "janitor", holder: "b", nowMs: 5_000, ttlMs: 10_000) == .held(first))
        guard
            case .acquired(let again, tookOver: false) = try store.acquireLease(
                name: "janitor", holder: "a", nowMs: 6_000, ttlMs: 10_000)
        else { Issue.record("the holder's own acquisition did not succeed"); return }
        #expect(again.token == 1 && again.expiresAtMs == 16_000)
        let renewed = try store.renewLease(again, nowMs: 15_000, ttlMs: 10_000)
        #expect(renewed?.expiresAtMs == 25_000 && renewed?.token == 1)
        #expect(try store.lease(name: "janitor") == renewed)
        // Another name is another lease.
        guard
            case .acquired(let other, _) = try store.acquireLease(
                name: "reconciler", holder: "b", nowMs: 15_000, ttlMs: 1_000)
        else { Issue.record("another name was not free"); return }
        #expect(other.token == 1)
    }

    /// A lease that ran out is taken over under the next token; the old holder can neither renew nor
    /// release it, and its fenced writes are refused without writing, while the new holder's go through.
    @Test(arguments: StoreKind.kinds)
    func aRunOutLeaseIsTakenOverAndTheOldFenceRefused(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.shared
        let keys = [Sample.uuid(), Sample.uuid()]
        try store.putIntents(keys.map { Sample.intent(key: $0) })
        guard case .acquired(let old, _) = try store.acquireLease(name: "janitor", holder: "a", nowMs: 0, ttlMs: 1_000)
        else { Issue.record("no lease"); return }
        // Still held at 999; run out at 1,000 exactly.
        #expect(try store.acquireLease(name: "janitor", holder: "b", nowMs: 999, ttlMs: 1_000) == .held(old))
        guard
            case .acquired(let new, tookOver: true) = try store.acquireLease(
                name: "janitor", holder: "b", nowMs: 1_000, ttlMs: 1_000)
        else { Issue.record("no takeover"); return }
        #expect(new.token == 2 && new.holder == "b")
        #expect(try store.renewLease(old, nowMs: 1_001, ttlMs: 1_000) == nil)
        #expect(try store.releaseLease(old, nowMs: 1_001) == false)
        // The old holder's write is refused and nothing is written.
        let refused = try store.fenced(by: old, nowMs: 1_001) { (writes) throws(RecordsError) -> Int in
            try writes.deleteIntents(imageKeys: [keys[0]])
            return 1
        }
        guard case .lost(let stored) = refused else { Issue.record("the old fence wrote"); return }
        #expect(stored == new)
        #expect(try store.intent(imageKey: keys[0]) != nil)
        // Even with its own (stale) clock saying the lease still holds.
        guard case .lost = try store.fenced(by: old, nowMs: 500, { _ throws(RecordsError) in 0 }) else {
            Issue.record("an old token wrote with an early clock")
            return
        }
        // The new holder's write goes through.
        let done = try store.fenced(by: new, nowMs: 1_500) { (writes) throws(RecordsError) -> Int in
            try writes.deleteIntents(imageKeys: [keys[1]])
            return 7
        }
        guard case .done(7) = done else { Issue.record("the holder's fenced write was refused"); return }
        #expect(try store.intent(imageKey: keys[1]) == nil)
        // Past its own end the holder's fence is refused too.
        guard case .lost = try store.fenced(by: new, nowMs: 2_000, { _ throws(RecordsError) in 0 }) else {
            Issue.record("a run-out lease wrote")
            return
        }
    }

    /// A released lease is free at once, and the next holder's token is greater, so the releaser's
    /// writes stay refused; even its old holder acquires it under a new token.
    @Test(arguments: StoreKind.kinds)
    func aReleasedLeaseIsTakenUnderANewToken(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.shared
        guard case .acquired(let first, _) = try store.acquireLease(name: "j", holder: "a", nowMs: 0, ttlMs: 60_000)
        else { Issue.record("no lease"); return }
        #expect(try store.releaseLease(first, nowMs: 10))
        guard
            case .acquired(let second, tookOver: true) = try store.acquireLease(
                name: "j", holder: "b", nowMs: 11, ttlMs: 60_000)
        else { Issue.record("a released lease was not free"); return }
        #expect(second.token == 2)
        #expect(try store.releaseLease(second, nowMs: 12))
        guard
            case .acquired(let third, tookOver: true) = try store.acquireLease(
                name: "j", holder: "a", nowMs: 13, ttlMs: 60_000)
        else { Issue.record("no lease again"); return }
        #expect(third.token == 3)
        guard case .lost = try store.fenced(by: first, nowMs: 14, { _ throws(RecordsError) in 0 }) else {
            Issue.record("the first token wrote after two takeovers")
            return
        }
    }

    /// The fenced writes each do what their store call does: pending object deletions are finished and
    /// multipart uploads removed, in one transaction.
    @Test(arguments: StoreKind.kinds)
    func fencedWritesDoWhatTheirCallsDo(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.shared
        let upload = MultipartUploadEntry(
            objectKey: "big/\(Sample.uuid())", uploadId: "u1", imageKey: Sample.uuid(), ownerId: "o", createdAtMs: 5)
        try store.putMultipartUpload(upload)
        let owner = "owner-\(Sample.uuid())"
        let old = Sample.record(owner: owner)
        _ = try store.fillSlot(old, slot: "profile", deletePrevious: true, nowMs: 1)
        _ = try store.fillSlot(Sample.record(owner: owner), slot: "profile", deletePrevious: true, nowMs: 2)
        #expect(try store.pendingObjectDeletions(limit: 10) == [old.objectKey])
        guard case .acquired(let lease, _) = try store.acquireLease(name: "j", holder: "a", nowMs: 0, ttlMs: 60_000)
        else { Issue.record("no lease"); return }
        let done = try store.fenced(by: lease, nowMs: 1) { (writes) throws(RecordsError) -> Bool in
            try writes.finishObjectDeletions([old.objectKey])
            try writes.removeMultipartUploads([(upload.objectKey, upload.uploadId)])
            return true
        }
        guard case .done(true) = done else { Issue.record("refused"); return }
        #expect(try store.pendingObjectDeletions(limit: 10).isEmpty)
        #expect(try store.multipartUpload(objectKey: upload.objectKey, uploadId: upload.uploadId) == nil)
    }

    /// A batch's quota releases and intent deletes in one fenced transaction (the janitor's settle): the
    /// reservations held are given back (and counted), the intents go; a refused fence writes neither.
    @Test(arguments: StoreKind.kinds)
    func fencedReleasesAndDeletesGoTogether(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.shared
        let owner = "owner-\(Sample.uuid())"
        let day = QuotaRequest.dayStart(of: QuotaStoreConformanceTests.noon)
        let intents = (0..<3).map { _ in Sample.intent(owner: owner) }
        let outcomes = try store.putIntents(intents, reserving: intents.map { QuotaStoreConformanceTests.request($0) })
        #expect(outcomes == [.stored, .stored, .stored])
        guard case .acquired(let old, _) = try store.acquireLease(name: "j", holder: "a", nowMs: 0, ttlMs: 1_000)
        else { Issue.record("no lease"); return }
        guard
            case .acquired(let new, tookOver: true) = try store.acquireLease(
                name: "j", holder: "b", nowMs: 1_000, ttlMs: 60_000)
        else { Issue.record("no takeover"); return }
        let keys = intents.map(\.imageKey)
        let refused = try store.fenced(by: old, nowMs: 1_001) { (writes) throws(RecordsError) -> Int in
            let released = try writes.releaseQuotas(imageKeys: keys)
            try writes.deleteIntents(imageKeys: keys)
            return released
        }
        guard case .lost = refused else { Issue.record("the old holder's release went through"); return }
        #expect(try store.quotaUsage(ownerId: owner, dayStartMs: day) == QuotaUsage(uploads: 3, bytes: 3_000))
        #expect(try store.intent(imageKey: keys[0]) != nil)
        let done = try store.fenced(by: new, nowMs: 1_002) { (writes) throws(RecordsError) -> Int in
            let released = try writes.releaseQuotas(imageKeys: Array(keys.prefix(2)) + ["never-reserved", keys[0]])
            try writes.deleteIntents(imageKeys: Array(keys.prefix(2)))
            return released
        }
        guard case .done(2) = done else { Issue.record("released \(done), not 2"); return }
        #expect(try store.quotaUsage(ownerId: owner, dayStartMs: day) == QuotaUsage(uploads: 1, bytes: 1_000))
        #expect(try store.intent(imageKey: keys[0]) == nil)
        #expect(try store.intent(imageKey: keys[1]) == nil)
        #expect(try store.intent(imageKey: keys[2]) != nil)
    }

    /// Eight holders asking at once through two store objects (two instances, or two processes' handles
    /// of one SQLite file), 10 trials: exactly one acquires, the others are told it is held.
    @Test(arguments: StoreKind.databases)
    func concurrentAcquisitionsHaveOneWinner(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let stores: [any SharedStateStore] = [test.shared, try test.reopen() as! any SharedStateStore]
        for trial in 0..<10 {
            let name = "work-\(trial)"
            let outcomes = Collector<LeaseOutcome>()
            runConcurrently(8) { index in
                do {
                    outcomes.append(
                        try stores[index % 2].acquireLease(name: name, holder: "h\(index)", nowMs: 100, ttlMs: 1_000))
                } catch {
                    Issue.record("acquisition \(index) failed: \(error)")
                }
            }
            let winners = outcomes.values.compactMap { outcome -> Lease? in
                if case .acquired(let lease, _) = outcome { return lease } else { return nil }
            }
            #expect(winners.count == 1, "trial \(trial): \(outcomes.values)")
            guard let winner = winners.first else { continue }
            #expect(winner.token == 1)
            #expect(outcomes.values.filter { $0 == .held(winner) }.count == 7)
        }
    }
}
