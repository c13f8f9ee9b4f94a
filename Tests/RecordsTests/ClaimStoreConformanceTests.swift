import Foundation
import TestSupport
import Testing

@testable import Records

/// Every store with the calls of schema version 7.
typealias ExactlyOnceStore = RecordStore & ClaimStore & EventInbox & MultipartLedger

extension TestStore {
    /// The store under test with its claims, inbox and multipart ledger.
    var full: any ExactlyOnceStore { store as! any ExactlyOnceStore }
}

/// The contract of `ClaimStore` (schema version 7), on every store: one claimant wins, the others read
/// the outcome; tokens fence; leases run out and are taken over; a settled claim binds its intent's
/// generation only.
@Suite(.blocking) struct ClaimStoreConformanceTests {
    /// A claim request for `key`.
    static func request(
        _ key: String, _ claimant: ClaimRequest.Claimant = .confirm, token: String = Sample.uuid(),
        nowMs: Int64 = 1_000,
        leaseMs: Int64 = 30_000, generation: Int64 = 1_700_000_000_000
    ) -> ClaimRequest {
        ClaimRequest(
            imageKey: key, intentCreatedAtMs: generation, claimant: claimant, token: token, nowMs: nowMs,
            leaseMs: leaseMs)
    }

    @Test(arguments: StoreKind.kinds)
    func oneClaimantWinsAndTheOthersReadTheRecord(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.full
        let key = Sample.uuid()
        let first = Self.request(key)
        guard case .won(let claim, nil) = try store.claimIntent(first) else {
            Issue.record("the first claim did not win")
            return
        }
        #expect(claim.state == .claimed && claim.token == first.token && claim.leaseUntilMs == 31_000)
        #expect(claim.claimant == "confirm")
        // Another token while the lease holds: held, naming the holder.
        let second = Self.request(key, .event, nowMs: 2_000)
        #expect(try store.claimIntent(second) == .held(claim))
        // The holder claims again with its own token: still its, the lease renewed.
        guard case .won(let renewed, nil) = try store.claimIntent(Self.request(key, token: first.token, nowMs: 5_000))
        else {
            Issue.record("the holder's own claim did not win again")
            return
        }
        #expect(renewed.leaseUntilMs == 35_000 && renewed.claimedAtMs == 1_000)
        // The loser cannot settle, release or renew it.
        let record = Sample.record(key: key)
        #expect(try store.recordClaimed([(record, second.token)], nowMs: 6_000) == [.fenced(renewed)])
        #expect(try store.record(imageKey: key) == nil)
        #expect(try store.releaseClaim(imageKey: key, token: second.token) == false)
        #expect(try store.renewClaim(imageKey: key, token: second.token, nowMs: 6_000, leaseMs: 1) == false)
        #expect(try store.expireClaim(imageKey: key, token: second.token, reason: "unconfirmed", nowMs: 6_000) == false)
        // The holder records: the record is durable, the claim settled.
        #expect(try store.recordClaimed([(record, first.token)], nowMs: 7_000) == [.recorded(record)])
        #expect(try store.record(imageKey: key) == record)
        let settled = try #require(try store.claim(imageKey: key))
        #expect(settled.state == .recorded && settled.recordId == record.id && settled.updatedAtMs == 7_000)
        // Every later claimant reads the record, whatever its token or generation.
        #expect(try store.claimIntent(second) == .recorded(record))
        #expect(
            try store.claimIntent(Self.request(key, .janitor, nowMs: 99_000, generation: 1_800_000_000_000))
                == .recorded(record))
        // A retry of the same settlement (its answer lost) is fenced now: the claim is settled.
        #expect(try store.recordClaimed([(record, first.token)], nowMs: 8_000) == [.fenced(settled)])
    }

    @Test(arguments: StoreKind.kinds)
    func anExpiredLeaseIsTakenOverWithANewToken(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.full
        let key = Sample.uuid()
        let crashed = Self.request(key, .confirm, nowMs: 1_000, leaseMs: 10_000)
        guard case .won(let old, nil) = try store.claimIntent(crashed) else {
            Issue.record("the first claim did not win")
            return
        }
        // At the lease's end exactly, another claimant takes over.
        #expect(try store.claimIntent(Self.request(key, .event, nowMs: 10_999)) == .held(old))
        let taker = Self.request(key, .event, nowMs: 11_000)
        guard case .won(let new, let previous) = try store.claimIntent(taker) else {
            Issue.record("the takeover did not win")
            return
        }
        #expect(previous == old)
        #expect(new.token == taker.token && new.claimant == "event" && new.claimedAtMs == 11_000)
        // The crashed claimant's late writes change nothing.
        let late = Sample.record(key: key)
        #expect(try store.recordClaimed([(late, crashed.token)], nowMs: 12_000) == [.fenced(new)])
        #expect(try store.renewClaim(imageKey: key, token: crashed.token, nowMs: 12_000, leaseMs: 10_000) == false)
        #expect(try store.record(imageKey: key) == nil)
        // The new holder renews, then records.
        #expect(try store.renewClaim(imageKey: key, token: taker.token, nowMs: 12_000, leaseMs: 10_000))
        #expect(try store.claim(imageKey: key)?.leaseUntilMs == 22_000)
        let record = Sample.record(key: key)
        #expect(try store.recordClaimed([(record, taker.token)], nowMs: 13_000) == [.recorded(record)])
    }

    @Test(arguments: StoreKind.kinds)
    func theJanitorsExpiryIsWhatLateConfirmationsRead(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.full
        let intent = Sample.intent()
        try store.putIntents([intent])
        let janitor = Self.request(intent.imageKey, .janitor, generation: intent.createdAtMs)
        guard case .won = try store.claimIntent(janitor) else {
            Issue.record("the janitor did not win")
            return
        }
        #expect(
            try store.expireClaim(imageKey: intent.imageKey, token: janitor.token, reason: "unconfirmed", nowMs: 2_000))
        try store.deleteIntents(imageKeys: [intent.imageKey])
        let expired = try #require(try store.claim(imageKey: intent.imageKey))
        #expect(expired.state == .expired && expired.reason == "unconfirmed" && expired.recordId == nil)
        // A late confirmation of the same intent reads the expiry (the API answers 410 INTENT_EXPIRED).
        let late = Self.request(intent.imageKey, .confirm, nowMs: 3_000, generation: intent.createdAtMs)
        #expect(try store.claimIntent(late) == .finished(expired))
        #expect(
            try store.recordClaimed([(Sample.record(key: intent.imageKey), late.token)], nowMs: 3_000) == [
                .fenced(expired)
            ])
        // The janitor's next pass after a crash between expiry and the intent's removal reads it too.
        #expect(
            try store.claimIntent(Self.request(intent.imageKey, .janitor, generation: intent.createdAtMs))
                == .finished(expired))
        // A re-issue of the key (a newer intent) is a new generation: claimable afresh.
        let reissued = Self.request(intent.imageKey, .confirm, nowMs: 4_000, generation: intent.createdAtMs + 1)
        guard case .won(let fresh, nil) = try store.claimIntent(reissued) else {
            Issue.record("a new generation did not win")
            return
        }
        #expect(fresh.state == .claimed && fresh.intentCreatedAtMs == intent.createdAtMs + 1)
    }

    @Test(arguments: StoreKind.kinds)
    func aReleasedClaimCanBeClaimedAgain(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.full
        let key = Sample.uuid()
        let first = Self.request(key, .event)
        guard case .won = try store.claimIntent(first) else {
            Issue.record("the first claim did not win")
            return
        }
        #expect(try store.releaseClaim(imageKey: key, token: first.token))
        #expect(try store.claim(imageKey: key) == nil)
        #expect(try store.releaseClaim(imageKey: key, token: first.token) == false)
        guard case .won(_, nil) = try store.claimIntent(Self.request(key, .confirm, nowMs: 1_001)) else {
            Issue.record("a claim after a release did not win")
            return
        }
    }

    @Test(arguments: StoreKind.kinds)
    func aRecordMadeOutsideTheClaimsIsReadAndKept(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.full
        // A record that exists before any claim (an older build's confirmation): claimants read it.
        let older = Sample.record()
        _ = try store.insertRecords([older])
        #expect(try store.claimIntent(Self.request(older.imageKey)) == .recorded(older))
        // A record inserted between a claim and its settlement: the settlement finds it, keeps it.
        let key = Sample.uuid()
        let claimant = Self.request(key)
        guard case .won = try store.claimIntent(claimant) else {
            Issue.record("the claim did not win")
            return
        }
        let other = Sample.record(key: key)
        _ = try store.insertRecords([other])
        let mine = Sample.record(owner: other.ownerId, key: key)
        #expect(try store.recordClaimed([(mine, claimant.token)], nowMs: 2_000) == [.existing(other)])
        #expect(try store.record(imageKey: key) == other)
        #expect(try store.claim(imageKey: key)?.recordId == other.id)
    }

    @Test(arguments: StoreKind.kinds)
    func settlementsInOneBatchAreIndependent(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.full
        let held = (0..<3).map { _ in Self.request(Sample.uuid()) }
        for request in held {
            guard case .won = try store.claimIntent(request) else {
                Issue.record("a claim did not win")
                return
            }
        }
        let records = held.map { Sample.record(key: $0.imageKey) }
        let stranger = Sample.record()
        let finishes = try store.recordClaimed(
            [
                (records[0], held[0].token), (stranger, Sample.uuid()), (records[1], "wrong"),
                (records[2], held[2].token),
            ],
            nowMs: 3_000)
        let heldClaim = try store.claim(imageKey: held[1].imageKey)
        #expect(finishes == [.recorded(records[0]), .fenced(nil), .fenced(heldClaim), .recorded(records[2])])
        #expect(try store.record(imageKey: stranger.imageKey) == nil)
        #expect(try store.record(imageKey: records[1].imageKey) == nil)
    }

    @Test(arguments: StoreKind.kinds)
    func settledClaimsArePrunedByAge(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.full
        var settled: [String] = []
        for index in 0..<3 {
            let request = Self.request(Sample.uuid(), .janitor, nowMs: Int64(index) * 1_000)
            _ = try store.claimIntent(request)
            #expect(
                try store.expireClaim(
                    imageKey: request.imageKey, token: request.token, reason: "unconfirmed", nowMs: Int64(index) * 1_000
                ))
            settled.append(request.imageKey)
        }
        let live = Self.request(Sample.uuid(), nowMs: 0)
        _ = try store.claimIntent(live)
        #expect(throws: RecordsError.self) { try store.pruneClaims(settledBeforeMs: 10_000, limit: 0) }
        #expect(try store.pruneClaims(settledBeforeMs: 1_500, limit: 10) == 2)
        #expect(try store.claim(imageKey: settled[0]) == nil && store.claim(imageKey: settled[1]) == nil)
        #expect(try store.claim(imageKey: settled[2]) != nil)
        #expect(try store.pruneClaims(settledBeforeMs: 99_000, limit: 10) == 1)
        #expect(try store.claim(imageKey: live.imageKey)?.state == .claimed)
    }

    @Test(arguments: StoreKind.kinds)
    func manyClaimantsAtOnceOneWins(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        // Two store objects on one database where the kind allows (two server instances).
        let stores: [any ExactlyOnceStore] =
            kind == .inMemory ? [test.full] : [test.full, try test.reopen() as! any ExactlyOnceStore]
        for trial in 0..<10 {
            let key = Sample.uuid()
            let outcomes = Collector<(Int, ClaimOutcome)>()
            let claimants = ClaimRequest.Claimant.allCases
            runConcurrently(8) { index in
                let request = Self.request(key, claimants[index % claimants.count], nowMs: Int64(trial))
                do {
                    outcomes.append((index, try stores[index % stores.count].claimIntent(request)))
                } catch {
                    Issue.record("claim \(index) failed: \(error)")
                }
            }
            let winners = outcomes.values.filter { if case .won = $0.1 { return true } else { return false } }
            #expect(winners.count == 1, "trial \(trial): \(outcomes.values.map(\.1))")
            guard case .won(let claim, _) = winners.first?.1 else { continue }
            for (_, outcome) in outcomes.values where outcome != winners[0].1 {
                #expect(outcome == .held(claim))
            }
        }
    }
}
