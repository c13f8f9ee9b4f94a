import Foundation
import TestSupport
import Testing

@testable import Records

/// Every store with the webhook outbox and the writes that emit into it.
typealias OutboxStore = RecordStore & ClaimStore & LeaseStore & WebhookOutbox

extension TestStore {
    /// The store under test with its claims, leases and webhook outbox.
    var outbox: any OutboxStore { store as! any OutboxStore }
}

/// The contract of `WebhookOutbox` (schema version 12), on every store: events written with the change
/// they report and only with it, once per (event, endpoint); due deliveries in order per subject; attempts
/// settled, fenced by a lease; the operator's list, redelivery, counts and the prune.
@Suite(.blocking) struct WebhookOutboxConformanceTests {
    /// An event of `type` about `subject` for `endpoints`.
    static func event(
        _ id: String = Sample.uuid(), type: String = "upload.completed", subject: String = Sample.uuid(),
        at createdAtMs: Int64 = 1_000, endpoints: [String] = ["a"], body: [UInt8]? = nil
    ) -> OutboxEvent {
        OutboxEvent(
            id: id, type: type, subject: subject, body: body ?? Array(#"{"type":"\#(type)","id":"\#(id)"}"#.utf8),
            createdAtMs: createdAtMs, endpoints: endpoints)
    }

    @Test(arguments: StoreKind.kinds)
    func eventsAreWrittenOncePerEndpointAndTakenInOrderPerSubject(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.outbox
        let s1 = "key-1"
        let s2 = "key-2"
        let first = Self.event(subject: s1, at: 1_000, endpoints: ["a", "b"], body: [0, 1, 2, 255])
        let second = Self.event(type: "upload.deleted", subject: s1, at: 1_001)
        let other = Self.event(subject: s2, at: 1_002)
        try store.appendOutboxEvents([first, second, other])
        // A second write of an event changes nothing; an event no endpoint wants writes nothing.
        try store.appendOutboxEvents([first, Self.event(endpoints: [])])
        #expect(
            try store.webhookOutboxStats() == WebhookOutboxStats(pending: 4, oldestPendingCreatedAtMs: 1_000, failed: 0)
        )
        // Nothing is due before it happened; then each subject's first, in order, per endpoint.
        #expect(try store.dueWebhookDeliveries(endpoint: "a", nowMs: 999, limit: 10).isEmpty)
        let dueA = try store.dueWebhookDeliveries(endpoint: "a", nowMs: 5_000, limit: 10)
        #expect(dueA.map(\.eventId) == [first.id, other.id])
        #expect(dueA[0].body == [0, 1, 2, 255] && dueA[0].attempts == 0 && dueA[0].state == .pending)
        #expect(dueA[0].type == "upload.completed" && dueA[0].subject == s1 && dueA[0].createdAtMs == 1_000)
        #expect(dueA[0].seq < dueA[1].seq)
        #expect(try store.dueWebhookDeliveries(endpoint: "b", nowMs: 5_000, limit: 10).map(\.eventId) == [first.id])
        #expect(try store.dueWebhookDeliveries(endpoint: "a", nowMs: 5_000, limit: 1).map(\.eventId) == [first.id])
        // A failed attempt keeps the subject's later event waiting until it is settled for good.
        #expect(
            try store.settleWebhookDelivery(
                seq: dueA[0].seq, attempt: .retry(dueAtMs: 9_000, error: "answered 500"), nowMs: 5_000))
        #expect(try store.dueWebhookDeliveries(endpoint: "a", nowMs: 5_001, limit: 10).map(\.eventId) == [other.id])
        // Due ones are taken longest due first (then in the order written).
        let retried = try store.dueWebhookDeliveries(endpoint: "a", nowMs: 9_000, limit: 10)
        try #require(retried.map(\.eventId) == [other.id, first.id])
        #expect(retried[1].attempts == 1 && retried[1].lastError == "answered 500")
        #expect(try store.settleWebhookDelivery(seq: retried[1].seq, attempt: .delivered, nowMs: 9_001))
        // Settled once: a second settlement of a finished delivery changes nothing.
        #expect(try store.settleWebhookDelivery(seq: retried[1].seq, attempt: .delivered, nowMs: 9_002) == false)
        // The subject's later event is due now that the earlier is settled.
        let next = try store.dueWebhookDeliveries(endpoint: "a", nowMs: 9_001, limit: 10)
        try #require(next.map(\.eventId) == [second.id, other.id])
        #expect(try store.settleWebhookDelivery(seq: next[0].seq, attempt: .failed(error: "timeout"), nowMs: 9_003))
        let delivered = try store.webhookDeliveries(eventId: first.id)
        #expect(delivered.map(\.endpoint).sorted() == ["a", "b"])
        let onA = try #require(delivered.first { $0.endpoint == "a" })
        #expect(onA.state == .delivered && onA.attempts == 2 && onA.finishedAtMs == 9_001 && onA.lastError == nil)
        let failed = try store.webhookDeliveries(state: .failed, limit: 10, afterSeq: nil)
        #expect(failed.map(\.eventId) == [second.id] && failed[0].lastError == "timeout" && failed[0].attempts == 1)
        #expect(
            try store.webhookOutboxStats() == WebhookOutboxStats(pending: 2, oldestPendingCreatedAtMs: 1_000, failed: 1)
        )
        // The operator's list pages by seq.
        let pending = try store.webhookDeliveries(state: .pending, limit: 1, afterSeq: nil)
        try #require(pending.count == 1)
        let rest = try store.webhookDeliveries(state: .pending, limit: 10, afterSeq: pending[0].seq)
        #expect(Set((pending + rest).map(\.eventId)) == [first.id, other.id] && rest.count == 1)
        // Redelivery: every delivery of the event pending again, due now, attempts reset.
        #expect(try store.redeliverWebhookEvent(eventId: second.id, nowMs: 20_000) == 1)
        #expect(try store.redeliverWebhookEvent(eventId: "no-such-event", nowMs: 20_000) == 0)
        let again = try #require(try store.webhookDeliveries(eventId: second.id).first)
        #expect(again.state == .pending && again.attempts == 0 && again.dueAtMs == 20_000 && again.finishedAtMs == nil)
        // The prune removes finished deliveries by age, never pending ones.
        #expect(try store.pruneWebhookDeliveries(finishedBeforeMs: 9_001, limit: 10) == 0)
        #expect(try store.pruneWebhookDeliveries(finishedBeforeMs: 99_000, limit: 10) == 1)
        #expect(try store.webhookDeliveries(eventId: first.id).map(\.endpoint) == ["b"])
        #expect(try store.webhookOutboxStats().pending == 3)
    }

    /// A group commit's batch writes its records' events together (PostgreSQL: one statement): each
    /// recorded one once, byte for byte, in the batch's order; none for a fenced item; a repeat within
    /// one write once.
    @Test(arguments: StoreKind.kinds)
    func aBatchOfConfirmationsWritesItsEventsInItsOrder(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.outbox
        var items: [ClaimedRecord] = []
        for i in 0..<5 {
            let record = Sample.record()
            let token = Sample.uuid()
            let claim = ClaimRequest(
                imageKey: record.imageKey, intentCreatedAtMs: 1, claimant: .confirm, token: token, nowMs: 1_000,
                leaseMs: 60_000)
            guard case .won = try store.claimIntent(claim) else { throw TestFailure("claim not won") }
            // Bytes an array literal or a text column would mangle: NUL, quotes, backslashes, braces, 0xFF.
            let body: [UInt8] = [0, UInt8(i), 0xFF] + Array(#"{"q":"\",}"#.utf8)
            let event = Self.event(subject: record.imageKey, at: 2_000 - Int64(i), endpoints: ["a", "b"], body: body)
            items.append(ClaimedRecord(record: record, token: i == 2 ? "not-the-token" : token, events: [event]))
        }
        let finishes = try store.recordClaimed(items, nowMs: 3_000)
        #expect(
            finishes.enumerated().allSatisfy { i, finish in
                if case .fenced = finish { return i == 2 }
                return finish == .recorded(items[i].record)
            })
        let written = try store.webhookDeliveries(state: .pending, limit: 20, afterSeq: nil)
        let expected = items.enumerated().filter { $0.offset != 2 }.map(\.element.events[0])
        #expect(written.filter { $0.endpoint == "a" }.map(\.eventId) == expected.map(\.id))
        #expect(written.filter { $0.endpoint == "b" }.map(\.eventId) == expected.map(\.id))
        for event in expected {
            let rows = try store.webhookDeliveries(eventId: event.id)
            #expect(rows.count == 2 && rows.allSatisfy { $0.body == event.body && $0.createdAtMs == event.createdAtMs })
        }
        let repeated = Self.event()
        try store.appendOutboxEvents([repeated, repeated])
        #expect(try store.webhookDeliveries(eventId: repeated.id).count == 1)
    }

    @Test(arguments: StoreKind.kinds)
    func aRecordsEventsGoInWithItsInsertAndOnlyThen(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.outbox
        let record = Sample.record()
        let token = Sample.uuid()
        let claim = ClaimRequest(
            imageKey: record.imageKey, intentCreatedAtMs: 1, claimant: .confirm, token: token, nowMs: 1_000,
            leaseMs: 60_000)
        guard case .won = try store.claimIntent(claim) else { throw TestFailure("claim not won") }
        let completed = Self.event(subject: record.imageKey)
        // Fenced off: another token, nothing recorded, no event.
        let fenced = try store.recordClaimed(
            [ClaimedRecord(record: record, token: "not-the-token", events: [completed])], nowMs: 1_001)
        guard case .fenced = fenced.first else { throw TestFailure("expected .fenced, got \(fenced)") }
        #expect(try store.webhookOutboxStats().pending == 0)
        let finish = try store.recordClaimed(
            [ClaimedRecord(record: record, token: token, events: [completed])], nowMs: 1_002)
        #expect(finish == [.recorded(record)])
        #expect(try store.webhookDeliveries(eventId: completed.id).count == 1)
        // The same settlement again: the claim is settled, so it is fenced off and writes no second event.
        let again = try store.recordClaimed(
            [ClaimedRecord(record: record, token: token, events: [completed])], nowMs: 1_003)
        guard case .fenced = again.first else { throw TestFailure("expected .fenced, got \(again)") }
        #expect(try store.webhookOutboxStats().pending == 1)
        // A record of another id under a claimed key (inserted between the claim and its settlement) is
        // `.existing`: the claimant's event is not written.
        let key = Sample.uuid()
        let claimant = ClaimRequest(
            imageKey: key, intentCreatedAtMs: 1, claimant: .confirm, token: Sample.uuid(), nowMs: 1_000,
            leaseMs: 60_000)
        guard case .won = try store.claimIntent(claimant) else { throw TestFailure("claim not won") }
        let other = Sample.record(key: key)
        _ = try store.insertRecords([other])
        let loser = Sample.record(owner: other.ownerId, key: key)
        let loserEvent = Self.event(subject: key)
        let existing = try store.recordClaimed(
            [ClaimedRecord(record: loser, token: claimant.token, events: [loserEvent])], nowMs: 1_004)
        #expect(existing == [.existing(other)])
        #expect(try store.webhookDeliveries(eventId: loserEvent.id).isEmpty)
        #expect(try store.webhookOutboxStats().pending == 1)
        // A deletion writes what `events` makes of the deleted record, and only when one was deleted.
        let deletedEvent = Self.event(type: "upload.deleted", subject: record.imageKey)
        #expect(try store.deleteRecord(id: record.id, ownerId: "someone-else", events: { _ in [deletedEvent] }) == nil)
        #expect(try store.webhookDeliveries(eventId: deletedEvent.id).isEmpty)
        var seen: ImageRecord?
        let deleted = try store.deleteRecord(id: record.id, ownerId: record.ownerId) { r in
            seen = r
            return [deletedEvent]
        }
        #expect(deleted == record && seen == record)
        #expect(try store.webhookDeliveries(eventId: deletedEvent.id).map(\.type) == ["upload.deleted"])
    }

    @Test(arguments: StoreKind.kinds)
    func aSlotFillWritesWhatItsEventMakerReturnsInItsTransaction(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.outbox
        let owner = "owner-\(Sample.uuid())"
        let a = Sample.record(owner: owner)
        let b = Sample.record(owner: owner)
        var fills: [SlotFill] = []
        func fill(_ r: ImageRecord) throws -> SlotOutcome {
            try store.fillSlot(r, slot: "profile", deletePrevious: true, nowMs: 5_000) { fill in
                fills.append(fill)
                return [Self.event(type: "upload.replaced", subject: fill.record.imageKey)]
            }
        }
        _ = try fill(a)
        #expect(fills == [SlotFill(slot: "profile", record: a, inserted: true, previous: nil, previousDeleted: false)])
        _ = try fill(b)
        #expect(fills.last == SlotFill(slot: "profile", record: b, inserted: true, previous: a, previousDeleted: true))
        // A repeat changes nothing: no call, no event.
        #expect(try fill(b) == .unchanged(b))
        #expect(fills.count == 2)
        #expect(try store.webhookOutboxStats().pending == 2)
    }

    @Test(arguments: StoreKind.kinds)
    func anExpiredClaimWritesItsEventsOnlyWhenSettled(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.outbox
        let key = Sample.uuid()
        let token = Sample.uuid()
        let claim = ClaimRequest(
            imageKey: key, intentCreatedAtMs: 1, claimant: .janitor, token: token, nowMs: 1_000, leaseMs: 60_000)
        guard case .won = try store.claimIntent(claim) else { throw TestFailure("claim not won") }
        let expired = Self.event(type: "upload.expired", subject: key)
        #expect(
            try store.expireClaim(imageKey: key, token: "other", reason: "unconfirmed", nowMs: 2_000, events: [expired])
                == false)
        #expect(try store.webhookOutboxStats().pending == 0)
        #expect(
            try store.expireClaim(imageKey: key, token: token, reason: "unconfirmed", nowMs: 2_000, events: [expired]))
        #expect(try store.webhookDeliveries(eventId: expired.id).map(\.type) == ["upload.expired"])
    }

    @Test(arguments: StoreKind.kinds)
    func settlementsUnderALeaseAreFencedByItsToken(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.outbox
        let e = Self.event()
        try store.appendOutboxEvents([e])
        let seq = try #require(try store.dueWebhookDeliveries(endpoint: "a", nowMs: 2_000, limit: 1).first?.seq)
        guard
            case .acquired(let first, _) = try store.acquireLease(
                name: "webhooks:a", holder: "one", nowMs: 1_000, ttlMs: 10_000)
        else { throw TestFailure("lease not acquired") }
        // The lease runs out and another holder takes it: the first holder's settlement is refused.
        guard
            case .acquired(let second, true) = try store.acquireLease(
                name: "webhooks:a", holder: "two", nowMs: 12_000, ttlMs: 10_000)
        else { throw TestFailure("lease not taken over") }
        let refused = try store.fenced(by: first, nowMs: 12_001) { (writes) throws(RecordsError) -> Bool in
            try writes.settleWebhookDelivery(seq: seq, attempt: .delivered, nowMs: 12_001)
        }
        guard case .lost = refused else { throw TestFailure("expected .lost, got \(refused)") }
        #expect(try store.webhookDeliveries(eventId: e.id).first?.state == .pending)
        let done = try store.fenced(by: second, nowMs: 12_002) { (writes) throws(RecordsError) -> Bool in
            try writes.settleWebhookDelivery(seq: seq, attempt: .delivered, nowMs: 12_002)
        }
        guard case .done(true) = done else { throw TestFailure("expected .done(true), got \(done)") }
        #expect(try store.webhookDeliveries(eventId: e.id).first?.state == .delivered)
    }

    /// A round settled as the deliverer does: not durable, the successes in one `settleDelivered`, the
    /// rest one by one; a delivery no longer pending is not counted, and a lost lease writes nothing.
    @Test(arguments: StoreKind.kinds)
    func aRoundsSuccessesSettleTogetherUnderALeaseWithoutWaitingForTheDisk(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.outbox
        let events = (0..<5).map { _ in Self.event() }
        try store.appendOutboxEvents(events)
        let seqs = try store.dueWebhookDeliveries(endpoint: "a", nowMs: 2_000, limit: 10).map(\.seq)
        #expect(seqs.count == 5)
        // The first was settled meanwhile (another round before a takeover): not pending any more.
        _ = try store.settleWebhookDelivery(seq: seqs[0], attempt: .delivered, nowMs: 1_500)
        guard
            case .acquired(let lease, _) = try store.acquireLease(
                name: "webhooks:a", holder: "one", nowMs: 1_000, ttlMs: 10_000)
        else { throw TestFailure("lease not acquired") }
        let done = try store.fenced(by: lease, nowMs: 2_000, durable: false) { (writes) throws(RecordsError) -> Int in
            _ = try writes.settleWebhookDelivery(
                seq: seqs[4], attempt: .retry(dueAtMs: 9_000, error: "answered 500"), nowMs: 2_000)
            return try writes.settleDelivered(seqs: Array(seqs[0..<4]), nowMs: 2_000)
        }
        guard case .done(3) = done else { throw TestFailure("expected .done(3), got \(done)") }
        for (n, event) in events.enumerated() {
            let stored = try #require(try store.webhookDeliveries(eventId: event.id).first)
            #expect(stored.state == (n == 4 ? .pending : .delivered), "\(n)")
            #expect(stored.attempts == 1)
            #expect(stored.finishedAtMs == (n == 0 ? 1_500 : n == 4 ? nil : 2_000))
        }
        #expect(try store.webhookDeliveries(eventId: events[4].id).first?.dueAtMs == 9_000)
        // After the lease ran out: nothing written.
        let refused = try store.fenced(by: lease, nowMs: 11_001, durable: false) { (writes) throws(RecordsError) in
            try writes.settleDelivered(seqs: [seqs[4]], nowMs: 11_001)
        }
        guard case .lost = refused else { throw TestFailure("expected .lost, got \(refused)") }
        #expect(try store.webhookDeliveries(eventId: events[4].id).first?.state == .pending)
    }
}
