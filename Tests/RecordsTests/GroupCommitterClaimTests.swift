import Foundation
import TestSupport
import Testing

@testable import Records

/// Group commit of claimed records (`insertClaimed`): each settles its claim with its record, fenced by its
/// token, and concurrent ones share `recordClaimed` transactions.
@Suite(.blocking) struct GroupCommitterClaimTests {
    /// The store under test with its claims.
    static func claims(_ test: TestStore) -> any RecordStore & ClaimStore {
        test.store as! any RecordStore & ClaimStore
    }

    /// Claims `key` for `token` at time 1,000 for a minute.
    static func claim(_ store: any ClaimStore, _ key: String, token: String) throws -> ClaimOutcome {
        try store.claimIntent(
            ClaimRequest(
                imageKey: key, intentCreatedAtMs: 1, claimant: .confirm, token: token, nowMs: 1_000, leaseMs: 60_000))
    }

    @Test(arguments: StoreKind.kinds)
    func claimedRecordsSettleTheirClaimsInSharedTransactions(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = Self.claims(test)
        let committer = GroupCommitter(store: store, maxBatch: 256)
        defer { committer.shutdown() }
        let keys = (0..<40).map { _ in Sample.uuid() }
        let tokens = keys.map { _ in Sample.uuid() }
        for (key, token) in zip(keys, tokens) {
            guard case .won = try Self.claim(store, key, token: token) else {
                Issue.record("a fresh key was not won")
                return
            }
        }
        let before = store.committedTransactions
        let finishes = Collector<ClaimFinish>()
        let failures = Collector<String>()
        runConcurrently(40) { index in
            do {
                let record = Sample.record(key: keys[index])
                finishes.append(try committer.insertClaimed(record, token: tokens[index], nowMs: 2_000))
            } catch {
                failures.append("\(error)")
            }
        }
        #expect(failures.values.isEmpty)
        #expect(finishes.values.count == 40)
        #expect(finishes.values.allSatisfy { if case .recorded = $0 { true } else { false } })
        for key in keys {
            #expect(try store.record(imageKey: key) != nil)
            #expect(try store.claim(imageKey: key)?.state == .recorded)
        }
        let transactions = store.committedTransactions - before
        #expect(transactions == committer.batchesCommitted, "one transaction per batch")
        #expect((1...40).contains(transactions))
    }

    @Test(arguments: StoreKind.kinds)
    func aTokenThatLostItsClaimWritesNothing(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = Self.claims(test)
        let committer = GroupCommitter(store: store, maxBatch: 16)
        defer { committer.shutdown() }
        let key = Sample.uuid()
        let holder = Sample.uuid()
        guard case .won(let claim, nil) = try Self.claim(store, key, token: holder) else {
            Issue.record("a fresh key was not won")
            return
        }
        #expect(
            try committer.insertClaimed(Sample.record(key: key), token: Sample.uuid(), nowMs: 2_000) == .fenced(claim))
        #expect(try store.record(imageKey: key) == nil)
        // Plain and claimed records in one committer: both land.
        let plain = Sample.record()
        #expect(try committer.insert(plain) == .inserted(plain))
        let mine = Sample.record(key: key)
        #expect(try committer.insertClaimed(mine, token: holder, nowMs: 3_000) == .recorded(mine))
        // Settled: the token holds nothing any more, so a second settle writes nothing.
        guard
            case .fenced(let settled?) = try committer.insertClaimed(
                Sample.record(key: key), token: holder, nowMs: 4_000)
        else {
            Issue.record("a settled claim was settled again")
            return
        }
        #expect(settled.state == .recorded && settled.recordId == mine.id)
        #expect(try store.record(imageKey: key) == mine)
    }
}
