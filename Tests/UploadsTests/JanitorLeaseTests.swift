import Foundation
import ObjectStore
import Records
import RecordsTestSupport
import Synchronization
import System
import TestSupport
import Testing
import UploadsTestSupport

@testable import Uploads

/// The janitor runs under its lease (issue 23): several janitors on one store (instances on one
/// database, processes on one SQLite file) remove each expired intent once in total, only the holder
/// sweeps, and a pass whose lease is taken over mid-pass writes nothing after it lost.
@Suite("Janitor under a lease")
struct JanitorLeaseTests {
    /// Where the janitors' store lives.
    enum Kind: String, CaseIterable, CustomTestStringConvertible, Sendable {
        /// One in-memory store shared by the janitors.
        case inMemory
        /// One SQLite file, opened by each janitor on its own (as separate processes would).
        case sqlite
        var testDescription: String { rawValue }
    }

    /// Collects the lifecycle events of one janitor.
    final class Events: Sendable {
        private let list = Mutex<[LifecycleEvent]>([])
        func append(_ event: LifecycleEvent) { list.withLock { $0.append(event) } }
        var values: [LifecycleEvent] { list.withLock { $0 } }
    }

    /// `count` intents of owner `owner`, expired an hour before `now`, each reserved in the owner's daily
    /// quota and with an object at its key in `storage`.
    static func expiredIntents(
        _ count: Int, owner: String, now: Int64, store: any LifecycleStore, storage: InMemoryObjectStorage
    ) throws -> [UploadIntent] {
        let prefix = "lease-\(UUID().uuidString.lowercased())"
        let intents = (0..<count).map { n in
            UploadIntent(
                ownerId: owner, imageKey: "\(prefix)/\(n)", objectKey: "\(prefix)/\(n)", permanentKey: nil,
                type: "IMAGE", contentType: "image/jpeg", allowedContentTypes: ["image/jpeg"], maxBytes: 10,
                createdAtMs: now - 4_000_000, expiresAtMs: now - 3_600_000 + Int64(n))
        }
        let day = QuotaRequest.dayStart(of: now)
        let outcomes = try store.putIntents(
            intents,
            reserving: intents.map {
                QuotaRequest(
                    imageKey: $0.imageKey, ownerId: owner, bytes: 1, dayStartMs: day, uploadsPerDay: nil,
                    bytesPerDay: nil)
            })
        #expect(outcomes.allSatisfy { $0 == .stored })
        for intent in intents { storage.put(intent.objectKey, bytes: [1], contentType: "image/jpeg") }
        return intents
    }

    /// The stores of `count` janitors of `kind`: one store object, or one per janitor on one file.
    static func stores(_ kind: Kind, count: Int) throws -> [any LifecycleStore] {
        switch kind {
        case .inMemory:
            let store = InMemoryRecordStore()
            return Array(repeating: store, count: count)
        case .sqlite:
            let path = "\(Temporary.directory())/lease.sqlite3"
            let first = try RecordStoreFactory.open(url: "sqlite:\(path)", poolSize: 2, busyTimeoutMs: 10_000)
            try first.migrate()
            var stores = [first]
            for _ in 1..<count {
                stores.append(try RecordStoreFactory.open(url: "sqlite:\(path)", poolSize: 2, busyTimeoutMs: 10_000))
            }
            return stores
        }
    }

    @Test(
        "three janitors on one store: each expired intent removed once, only the holder sweeps",
        arguments: Kind.allCases)
    func eachRemovalHappensOnce(kind: Kind) throws {
        let stores = try Self.stores(kind, count: 3)
        let objects = InMemoryObjectStorage()
        let owner = "owner-\(UUID().uuidString.lowercased())"
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let n = 60
        let intents = try Self.expiredIntents(n, owner: owner, now: now, store: stores[0], storage: objects)
        let storages = (0..<3).map { _ in GatedStorage(objects) }
        // The real clock: the runners' keepers and the lease rows agree on it. A 10 s lease renewed every
        // 3.3 s: no stall of a loaded machine runs it out, so one janitor holds it throughout.
        let janitors = (0..<3).map { index in
            Janitor(
                store: stores[index], storage: storages[index], deleteObjects: true, batchSize: 7, intervalMs: 50,
                env: UploadEnvironment(
                    nowMillis: { Int64(Date().timeIntervalSince1970 * 1000) },
                    newUUID: { UUID().uuidString.lowercased() }),
                events: { _ in }, graceMs: 0, leaseTtlMs: 10_000, holder: "instance-\(index)")
        }
        for janitor in janitors { janitor.start() }
        let emptied = try eventuallyBlocking {
            try stores[0].expiredIntents(nowMs: Int64(Date().timeIntervalSince1970 * 1000), limit: 1).isEmpty
        }
        // Some more passes of the holder, which must find nothing more to do.
        PThread.sleep(milliseconds: 300)
        for janitor in janitors { janitor.stop() }
        #expect(emptied, "every expired intent removed within 30 s")
        let removed = janitors.map { $0.intentsRemoved.load(ordering: .relaxed) }
        let deleted = janitors.map { $0.objectsDeleted.load(ordering: .relaxed) }
        let released = janitors.map { $0.quotasReleased.load(ordering: .relaxed) }
        let sweeps = janitors.map { $0.sweeps.load(ordering: .relaxed) }
        let acquired = janitors.map { $0.leasesAcquired.load(ordering: .relaxed) }
        #expect(removed.reduce(0, +) == n, "removed \(removed)")
        #expect(deleted.reduce(0, +) == n, "deleted \(deleted)")
        #expect(storages.map { $0.deletes.load(ordering: .relaxed) }.reduce(0, +) == n, "one DELETE per object")
        #expect(released.reduce(0, +) == n, "released \(released)")
        #expect(acquired.reduce(0, +) == 1, "one holder throughout: \(acquired)")
        for index in 0..<3 where acquired[index] == 0 {
            #expect(sweeps[index] == 0, "janitor \(index) never held the lease, yet swept \(sweeps[index]) times")
        }
        #expect(janitors.map { $0.intentsHeld.load(ordering: .relaxed) }.reduce(0, +) == 0, "no sweep met another")
        #expect(intents.allSatisfy { !objects.keys.contains($0.objectKey) })
        let usage = try stores[0].quotaUsage(ownerId: owner, dayStartMs: QuotaRequest.dayStart(of: now))
        #expect(usage.uploads == 0, "every reservation given back once")
    }

    @Test("a pass whose lease is taken over mid-pass writes nothing after it lost; the new holder finishes")
    func aTakenOverPassWritesNothing() throws {
        let store = InMemoryRecordStore()
        let objects = InMemoryObjectStorage()
        let clock = ManualClock(Int64(Date().timeIntervalSince1970 * 1000))
        let owner = "owner-\(UUID().uuidString.lowercased())"
        let n = 5
        let intents = try Self.expiredIntents(n, owner: owner, now: clock.now, store: store, storage: objects)
        let env = UploadEnvironment(nowMillis: { clock.now }, newUUID: { UUID().uuidString.lowercased() })
        let ttl: Int64 = 3_000
        let slow = GatedStorage(objects, holding: .first)
        let fast = GatedStorage(objects)
        let firstEvents = Events()
        let first = Janitor(
            store: store, storage: slow, deleteObjects: true, batchSize: 10, intervalMs: 60_000, env: env,
            events: { firstEvents.append($0) }, graceMs: 0, leaseTtlMs: ttl, holder: "a")
        let second = Janitor(
            store: store, storage: fast, deleteObjects: true, batchSize: 10, intervalMs: 100, env: env,
            events: { _ in }, graceMs: 0, leaseTtlMs: ttl, holder: "b")
        first.start()
        var stopped = false
        defer {
            if !stopped {
                slow.release()
                first.stop()
                second.stop()
            }
        }
        #expect(eventuallyBlocking { slow.deletes.load(ordering: .relaxed) == 1 }, "the first DELETE is in flight")
        // The holder stalls past its lease (the clock moves on, no renewal can reach the store in time):
        // the other janitor takes the lease over.
        clock.advance(ttl + 1_000)
        second.start()
        #expect(eventuallyBlocking { second.leasesAcquired.load(ordering: .relaxed) == 1 }, "taken over")
        #expect(eventuallyBlocking { first.leasesLost.load(ordering: .relaxed) == 1 }, "the old holder saw it lost")
        #expect(first.leaseHeld.load(ordering: .relaxed) == 0)
        #expect(second.leaseHeld.load(ordering: .relaxed) == 1)
        #expect(try store.lease(name: Janitor.leaseName)?.holder == "b")
        // The stalled DELETE ends: the old pass settles that intent's claim (its own) and then stops; its
        // fenced release and delete are refused.
        slow.release()
        #expect(eventuallyBlocking { firstEvents.values.contains(.janitorPassFencedOff(intentsLeft: 1)) })
        let emptied = try eventuallyBlocking { try store.expiredIntents(nowMs: clock.now, limit: 1).isEmpty }
        #expect(emptied, "the new holder removes every intent")
        first.stop()
        second.stop()
        stopped = true
        #expect(first.intentsRemoved.load(ordering: .relaxed) == 0, "nothing written after the loss")
        #expect(first.quotasReleased.load(ordering: .relaxed) == 0)
        #expect(second.intentsRemoved.load(ordering: .relaxed) == n)
        #expect(second.quotasReleased.load(ordering: .relaxed) == n)
        #expect(
            first.objectsDeleted.load(ordering: .relaxed) + second.objectsDeleted.load(ordering: .relaxed) == n,
            "each object deleted once (the settled claim tells the new holder the first one is gone)")
        #expect(slow.deletes.load(ordering: .relaxed) == 1)
        #expect(intents.allSatisfy { !objects.keys.contains($0.objectKey) })
        #expect(
            try store.quotaUsage(ownerId: owner, dayStartMs: QuotaRequest.dayStart(of: clock.now)).uploads == 0)
    }
}
