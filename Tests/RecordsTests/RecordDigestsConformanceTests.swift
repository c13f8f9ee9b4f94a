import TestSupport
import Testing

@testable import Records

/// Schema version 11 on every store: an intent keeps what its client declared (size, SHA-256, MD5), on
/// every write path; a record keeps its SHA-256 and is found by it (`RecordDigests.listRecords`), only
/// the owner's, newest first, page by page; a claim settled by another key's record of the same bytes
/// (`settleDeduplicated`) reads as settled by that record.
@Suite(.blocking) struct RecordDigestsConformanceTests {
    static let sha = "cRc5reHoWp/hr1Nw2YJb0w3TkSKB80ECoevO7HOqpDU="
    static let otherSha = "n1qYjD5zaD/2AfBcu/8CWluF8Jy7dJSZUlwLjR236gc="

    /// The store's digest lookups and claims (every store has them).
    static func digests(_ store: any RecordStore) throws -> any RecordDigests & ClaimStore {
        try #require(store as? any RecordDigests & ClaimStore)
    }

    @Test(arguments: StoreKind.kinds)
    func intentsKeepWhatTheirClientDeclared(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.store
        // A fresh key (PostgreSQL copies those in), a client-chosen one (upserted), and one without a
        // declaration.
        var fresh = Sample.intent()
        fresh.freshKey = true
        fresh.declaredSize = 1_048_576
        fresh.checksumSHA256 = Self.sha
        fresh.contentMD5 = "Jl+55GiW2vkDAayLd69RIw=="
        var chosen = Sample.intent()
        chosen.declaredSize = 0
        chosen.checksumSHA256 = Self.otherSha
        let plain = Sample.intent()
        try store.putIntents([fresh, chosen, plain])
        #expect(try store.intent(imageKey: fresh.imageKey) == fresh)
        #expect(try store.intent(imageKey: chosen.imageKey) == chosen)
        let read = try #require(try store.intent(imageKey: plain.imageKey))
        #expect(read == plain && read.declaredSize == nil && read.checksumSHA256 == nil && read.contentMD5 == nil)
        // A re-issue of the key replaces the declaration, to none as well.
        var reissued = fresh
        reissued.freshKey = false
        reissued.createdAtMs += 1
        reissued.declaredSize = nil
        reissued.checksumSHA256 = nil
        reissued.contentMD5 = nil
        try store.putIntents([reissued])
        #expect(try store.intent(imageKey: fresh.imageKey) == reissued)
        // The janitor's read keeps it too.
        var expired = Sample.intent(expiresAtMs: 1_000)
        expired.checksumSHA256 = Self.sha
        try store.putIntents([expired])
        #expect(try store.expiredIntents(nowMs: 2_000, limit: 10).contains(expired))
    }

    @Test(arguments: StoreKind.kinds)
    func recordsAreFoundByTheirSHA256(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.store
        let digests = try Self.digests(store)
        func record(_ owner: String, _ sha: String?, type: String = "PROFILE", at ms: Int64) -> ImageRecord {
            var r = Sample.record(owner: owner, type: type, createdAtMs: ms)
            r.sha256 = sha
            return r
        }
        let mine = (0..<5).map { record("alice", Self.sha, at: 1_700_000_000_000 + Int64($0)) }
        let other = record("alice", Self.otherSha, at: 1_700_000_000_100)
        let feed = record("alice", Self.sha, type: "FEED", at: 1_700_000_000_200)
        let none = record("alice", nil, at: 1_700_000_000_300)
        let theirs = record("mallory", Self.sha, at: 1_700_000_000_400)
        _ = try store.insertRecords(mine + [other, feed, none, theirs])
        #expect(try store.record(id: mine[0].id, ownerId: "alice")?.sha256 == Self.sha)
        #expect(try store.record(imageKey: none.imageKey)?.sha256 == nil)

        let all = try digests.listRecords(ownerId: "alice", sha256: Self.sha, type: nil, limit: 10, after: nil)
        #expect(all.records.map(\.id) == [feed.id] + mine.reversed().map(\.id))
        #expect(all.next == nil)
        let profiles = try digests.listRecords(
            ownerId: "alice", sha256: Self.sha, type: "PROFILE", limit: 2, after: nil)
        #expect(profiles.records.map(\.id) == [mine[4].id, mine[3].id])
        let next = try #require(profiles.next)
        let second = try digests.listRecords(
            ownerId: "alice", sha256: Self.sha, type: "PROFILE", limit: 10, after: next)
        #expect(second.records.map(\.id) == [mine[2].id, mine[1].id, mine[0].id])
        #expect(
            try digests.listRecords(ownerId: "alice", sha256: Self.otherSha, type: nil, limit: 10, after: nil).records
                == [other])
        #expect(
            try digests.listRecords(ownerId: "mallory", sha256: Self.sha, type: nil, limit: 10, after: nil).records
                == [theirs])
        #expect(
            try digests.listRecords(ownerId: "bob", sha256: Self.sha, type: nil, limit: 10, after: nil).records.isEmpty)
        #expect(throws: RecordsError.self) {
            try digests.listRecords(ownerId: "alice", sha256: Self.sha, type: nil, limit: 0, after: nil)
        }
    }

    @Test(arguments: StoreKind.kinds)
    func aClaimSettledByAnotherRecordReadsAsSettledByIt(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.store
        let claims = try Self.digests(store)
        var existing = Sample.record(owner: "alice")
        existing.sha256 = Self.sha
        _ = try store.insertRecords([existing])
        let intent = Sample.intent(owner: "alice")
        try store.putIntents([intent])
        func request(_ token: String, now: Int64) -> ClaimRequest {
            ClaimRequest(
                imageKey: intent.imageKey, intentCreatedAtMs: intent.createdAtMs, claimant: .confirm, token: token,
                nowMs: now, leaseMs: 10_000)
        }
        guard case .won = try claims.claimIntent(request("t1", now: 1_000)) else {
            Issue.record("the claim was not won")
            return
        }
        #expect(
            try claims.settleDeduplicated(
                imageKey: intent.imageKey, token: "other", recordId: existing.id, nowMs: 1_001)
                == false)
        #expect(
            try claims.settleDeduplicated(imageKey: intent.imageKey, token: "t1", recordId: existing.id, nowMs: 1_002))
        guard case .finished(let settled) = try claims.claimIntent(request("t2", now: 1_003)) else {
            Issue.record("a settled claim did not read as finished")
            return
        }
        #expect(settled.state == .recorded && settled.recordId == existing.id && settled.reason == "deduplicated")
        // Settled once: a second settling of the same token changes nothing.
        #expect(
            try claims.settleDeduplicated(imageKey: intent.imageKey, token: "t1", recordId: existing.id, nowMs: 1_004)
                == false)
        // No record was made for the key itself.
        #expect(try store.record(imageKey: intent.imageKey) == nil)
    }
}
