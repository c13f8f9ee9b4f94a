import Foundation
import TestSupport
import Testing

@testable import Records

/// Every store with records, leases, the webhook outbox and the scan queue.
typealias ScanningStore = RecordStore & LeaseStore & WebhookOutbox & ScanQueue

extension TestStore {
    /// The store under test with its scan queue.
    var scans: any ScanningStore { store as! any ScanningStore }
}

/// The contract of `ScanQueue` (schema version 13), on every store: a `scanning` record is due until it
/// is settled, once, to `published` (its object key moved) or `rejected` (reason and detail), with its
/// outbox events in the same transaction; a retry puts it off and counts; a settlement under a lease is
/// fenced by its token; a record not scanning is not settled.
@Suite(.blocking) struct ScanQueueConformanceTests {
    /// A `scanning` record of `owner`, promoted to `images/…` once clean.
    static func scanning(owner: String = "owner-\(Sample.uuid())", createdAtMs: Int64 = 1_700_000_000_000)
        -> ImageRecord
    {
        var record = Sample.record(owner: owner, createdAtMs: createdAtMs)
        record.objectKey = "temp/\(record.imageKey).jpg"
        record.state = .scanning
        record.publishKey = "images/\(record.imageKey).jpg"
        return record
    }

    /// An event about `record`.
    static func event(_ type: String, _ record: ImageRecord) -> [OutboxEvent] {
        [
            OutboxEvent(
                id: Sample.uuid(), type: type, subject: record.imageKey,
                body: Array(#"{"state":"\#(record.state.rawValue)"}"#.utf8), createdAtMs: 5, endpoints: ["a"])
        ]
    }

    @Test(arguments: StoreKind.kinds)
    func scanningRecordsAreDueUntilSettledOnce(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.scans
        let owner = "owner-\(Sample.uuid())"
        let first = Self.scanning(owner: owner, createdAtMs: 1_000)
        let second = Self.scanning(owner: owner, createdAtMs: 2_000)
        let published = Sample.record(owner: owner)
        _ = try store.insertRecords([first, second, published])
        // Stored as given: the state and the key to publish at read back.
        #expect(try store.record(id: first.id, ownerId: owner) == first)
        #expect(try store.record(id: published.id, ownerId: owner)?.state == .published)
        #expect(try store.scanQueueStats() == ScanQueueStats(scanning: 2, oldestCreatedAtMs: 1_000))
        let due = try store.dueScans(nowMs: 0, limit: 10)
        #expect(due.map(\.record) == [first, second])
        #expect(due.allSatisfy { $0.attempts == 0 && $0.dueAtMs == 0 && $0.lastError == nil })
        #expect(try store.dueScans(nowMs: 0, limit: 1).map(\.record.id) == [first.id])
        // A retry puts the first off and counts.
        let retried = try store.settleScan(
            id: first.id, .retry(dueAtMs: 9_000, error: "clamd down"), events: { _ in [] })
        #expect(retried == first)
        #expect(try store.dueScans(nowMs: 8_999, limit: 10).map(\.record.id) == [second.id])
        let again = try store.dueScans(nowMs: 9_000, limit: 10)
        #expect(again.map(\.record.id) == [second.id, first.id])
        let entry = try #require(again.last)
        #expect(entry.attempts == 1 && entry.dueAtMs == 9_000 && entry.lastError == "clamd down")
        // Published: the object key moves, the publish key goes, the event is written with it.
        let done = try store.settleScan(id: first.id, .published(objectKey: first.publishKey!)) {
            Self.event("upload.completed", $0)
        }
        var expected = first
        expected.state = .published
        expected.objectKey = first.publishKey!
        expected.publishKey = nil
        #expect(done == expected)
        #expect(try store.record(id: first.id, ownerId: owner) == expected)
        let events = try store.dueWebhookDeliveries(endpoint: "a", nowMs: 10_000, limit: 10)
        #expect(events.map(\.type) == ["upload.completed"])
        #expect(events.first.map { String(decoding: $0.body, as: UTF8.self) } == #"{"state":"published"}"#)
        // Settled once: a second settlement (and one of a record never scanning) writes nothing.
        #expect(try store.settleScan(id: first.id, .rejected(reason: "X", detail: "y")) { Self.event("e", $0) } == nil)
        #expect(try store.settleScan(id: published.id, .published(objectKey: "z")) { Self.event("e", $0) } == nil)
        #expect(try store.settleScan(id: Sample.uuid(), .published(objectKey: "z")) { Self.event("e", $0) } == nil)
        #expect(try store.webhookOutboxStats().pending == 1)
        // Rejected: reason and detail kept, the event written with it; the queue is empty.
        let rejected = try #require(
            try store.settleScan(id: second.id, .rejected(reason: "MALWARE_FOUND", detail: "Test.Sig")) {
                Self.event("upload.rejected", $0)
            })
        #expect(rejected.state == .rejected && rejected.rejectionReason == "MALWARE_FOUND")
        #expect(rejected.rejectionDetail == "Test.Sig" && rejected.publishKey == nil)
        #expect(rejected.objectKey == second.objectKey)
        #expect(try store.record(id: second.id, ownerId: owner) == rejected)
        #expect(try store.dueScans(nowMs: .max, limit: 10).isEmpty)
        #expect(try store.scanQueueStats() == ScanQueueStats(scanning: 0, oldestCreatedAtMs: nil))
        #expect(try store.webhookOutboxStats().pending == 2)
    }

    @Test(arguments: StoreKind.kinds)
    func aSettlementUnderALeaseIsFencedByItsToken(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.scans
        let record = Self.scanning()
        _ = try store.insertRecords([record])
        guard
            case .acquired(let first, _) = try store.acquireLease(
                name: "scanner", holder: "one", nowMs: 1_000, ttlMs: 10_000)
        else { throw TestFailure("lease not acquired") }
        guard
            case .acquired(let second, true) = try store.acquireLease(
                name: "scanner", holder: "two", nowMs: 12_000, ttlMs: 10_000)
        else { throw TestFailure("lease not taken over") }
        let refused = try store.fenced(by: first, nowMs: 12_001) { (writes) throws(RecordsError) -> ImageRecord? in
            try writes.settleScan(id: record.id, .published(objectKey: "images/x")) {
                Self.event("upload.completed", $0)
            }
        }
        guard case .lost = refused else { throw TestFailure("expected .lost, got \(refused)") }
        #expect(try store.record(id: record.id, ownerId: record.ownerId)?.state == .scanning)
        #expect(try store.webhookOutboxStats().pending == 0)
        let done = try store.fenced(by: second, nowMs: 12_002) { (writes) throws(RecordsError) -> ImageRecord? in
            try writes.settleScan(id: record.id, .rejected(reason: "TOO_LARGE_TO_SCAN", detail: "big")) {
                Self.event("upload.rejected", $0)
            }
        }
        guard case .done(let settled?) = done else { throw TestFailure("expected .done(record), got \(done)") }
        #expect(settled.state == .rejected && settled.rejectionReason == "TOO_LARGE_TO_SCAN")
        #expect(try store.record(id: record.id, ownerId: record.ownerId) == settled)
        #expect(try store.webhookOutboxStats().pending == 1)
        // A retry through the fence counts too.
        let other = Self.scanning()
        _ = try store.insertRecords([other])
        let noted = try store.fenced(by: second, nowMs: 12_003) { (writes) throws(RecordsError) -> ImageRecord? in
            try writes.settleScan(id: other.id, .retry(dueAtMs: 20_000, error: "timeout"), events: { _ in [] })
        }
        guard case .done(other?) = noted else { throw TestFailure("expected .done(other), got \(noted)") }
        let entry = try #require(try store.dueScans(nowMs: 20_000, limit: 5).first)
        #expect(entry.record.id == other.id && entry.attempts == 1 && entry.lastError == "timeout")
    }

    @Test func version13AddsTheStateColumnsAndThePartialIndexInBothDialects() throws {
        let thirteen = try #require(Schema.migrations.first { $0.version == 13 })
        #expect(thirteen.sqlite.count == 8 && thirteen.postgres.count == 8)
        #expect(thirteen.sqlite.contains { $0.contains("DEFAULT 'published'") })
        #expect(thirteen.postgres.contains { $0.contains("WHERE state = 'scanning'") })
        #expect(Schema.recordColumns.hasSuffix("sha256, state, state_reason, state_detail, publish_key"))
    }
}
