import Crypto
import Foundation
import Records
import RecordsTestSupport
import Synchronization
import TestSupport
import Testing

@testable import WebhookDelivery
@testable import Webhooks

/// The deliverer against a loopback receiver (TestSupport's `StandInServer`) and the in-memory outbox:
/// attempts and their settlement, retries, final failures, order per subject, the lease.
@Suite struct WebhookDelivererTests {
    static let secretText = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

    /// A clock the test moves (epoch ms).
    final class Clock: Sendable {
        let ms = Atomic<Int64>(1_800_000_000_000)
        var now: Int64 { ms.load(ordering: .relaxed) }
        func advance(_ by: Int64) { ms.add(by, ordering: .relaxed) }
    }

    /// A deliverer of `store` to the receiver on `port`, with a short schedule.
    static func deliverer(
        _ store: InMemoryRecordStore, port: Int, clock: Clock? = nil, maxAttempts: Int = 10, timeoutMs: Int = 2_000,
        holder: String = "test", concurrency: Int = 4, leaseTtlMs: Int64 = 10_000,
        events: @escaping @Sendable (WebhookDeliveryEvent) -> Void = { _ in }
    ) throws -> WebhookDeliverer {
        let options = WebhookDeliveryOptions(
            timeoutMs: timeoutMs, schedule: RetrySchedule(baseMs: 100, maxMs: 400, maxAttempts: maxAttempts),
            retentionMs: 3_600_000, pollIntervalMs: 20, concurrency: concurrency, leaseTtlMs: leaseTtlMs,
            holder: holder)
        let now: @Sendable () -> Int64
        if let clock { now = { clock.now } } else { now = { Int64(Date().timeIntervalSince1970 * 1000) } }
        return WebhookDeliverer(
            store: store,
            endpoints: [WebhookEndpoint(name: "a", url: try WebhookURL(parsing: "http://127.0.0.1:\(port)/hook"))],
            signer: WebhookSigner(current: try WebhookSecret(parsing: secretText)), options: options, now: now,
            random: { 0.5 }, events: events)
    }

    /// An event about `subject` for endpoint `a`, at `at`.
    static func event(subject: String = UUID().uuidString, at: Int64, n: Int = 0) -> OutboxEvent {
        let id = UUID().uuidString.lowercased()
        return OutboxEvent(
            id: id, type: "upload.completed", subject: subject,
            body: Array(#"{"type":"upload.completed","n":\#(n)}"#.utf8),
            createdAtMs: at, endpoints: ["a"])
    }

    /// Whether `request` carries a valid Standard Webhooks signature of its body.
    static func verifies(_ request: StandInServer.Request) throws -> Bool {
        guard let id = request.header("webhook-id"), let stamp = request.header("webhook-timestamp"),
            let timestamp = Int64(stamp), let signature = request.header("webhook-signature")
        else { return false }
        let expected = WebhookSigner(current: try WebhookSecret(parsing: secretText))
            .signature(id: id, timestamp: timestamp, body: Array(request.body.utf8))
        return signature.split(separator: " ").contains { String($0) == expected }
    }

    @Test func fiveHundredThreeTimesThenOKIsFourAttemptsOfOneEvent() throws {
        let receiver = try StandInServer(replies: [
            .respond(500), .respond(500), .respond(500), .respond(200, body: "ok"),
        ])
        defer { receiver.stop() }
        let store = InMemoryRecordStore()
        let clock = Clock()
        let e = Self.event(at: clock.now)
        try store.appendOutboxEvents([e])
        let deliverer = try Self.deliverer(store, port: receiver.port, clock: clock)
        for _ in 0..<4 {
            deliverer.deliverDue(endpoint: "a")
            clock.advance(1_000)
        }
        deliverer.deliverDue(endpoint: "a")
        let requests = receiver.requests
        #expect(requests.count == 4)
        #expect(requests.allSatisfy { $0.header("webhook-id") == e.id && $0.method == "POST" && $0.target == "/hook" })
        #expect(try requests.allSatisfy(Self.verifies))
        #expect(requests.allSatisfy { $0.header("content-type") == "application/json" })
        #expect(requests.map(\.body) == Array(repeating: String(decoding: e.body, as: UTF8.self), count: 4))
        let stored = try #require(try store.webhookDeliveries(eventId: e.id).first)
        #expect(stored.state == .delivered && stored.attempts == 4)
        #expect(deliverer.retried.load(ordering: .relaxed) == 3 && deliverer.delivered.load(ordering: .relaxed) == 1)
    }

    @Test func aDeliveryFailsForGoodAfterItsLastAttemptAndIsReportedOnce() throws {
        let receiver = try StandInServer(replies: [.respond(503)])
        defer { receiver.stop() }
        let store = InMemoryRecordStore()
        let clock = Clock()
        let e = Self.event(at: clock.now)
        try store.appendOutboxEvents([e])
        let reported = Mutex<[WebhookDeliveryEvent]>([])
        let deliverer = try Self.deliverer(store, port: receiver.port, clock: clock, maxAttempts: 3) { event in
            reported.withLock { $0.append(event) }
        }
        for _ in 0..<5 {
            deliverer.deliverDue(endpoint: "a")
            clock.advance(1_000)
        }
        #expect(receiver.requests.count == 3)
        let stored = try #require(try store.webhookDeliveries(eventId: e.id).first)
        #expect(stored.state == .failed && stored.attempts == 3 && stored.lastError == "answered 503")
        #expect(
            reported.withLock { $0 } == [
                .failedForGood(
                    endpoint: "a", eventId: e.id, type: "upload.completed", attempts: 3, error: "answered 503")
            ])
        #expect(deliverer.failed.load(ordering: .relaxed) == 1)
        // The operator's redelivery makes it pending again: one more attempt.
        #expect(try store.redeliverWebhookEvent(eventId: e.id, nowMs: clock.now) == 1)
        deliverer.deliverDue(endpoint: "a")
        #expect(receiver.requests.count == 4)
    }

    @Test func aRefusedConnectionAndATimeoutAreFailedAttempts() throws {
        let store = InMemoryRecordStore()
        let clock = Clock()
        let refused = Self.event(at: clock.now)
        try store.appendOutboxEvents([refused])
        let closed = try ClosedPort()
        defer { withExtendedLifetime(closed) {} }
        let nobody = closed.port
        try Self.deliverer(store, port: nobody, clock: clock).deliverDue(endpoint: "a")
        let afterRefusal = try #require(try store.webhookDeliveries(eventId: refused.id).first)
        #expect(afterRefusal.state == .pending && afterRefusal.attempts == 1)
        #expect(afterRefusal.lastError?.hasPrefix("connection failed") == true, "\(afterRefusal.lastError ?? "")")
        #expect(afterRefusal.dueAtMs == clock.now + 100)

        let hanging = try StandInServer(replies: [.hang])
        defer { hanging.stop() }
        let store2 = InMemoryRecordStore()
        let slow = Self.event(at: clock.now)
        try store2.appendOutboxEvents([slow])
        try Self.deliverer(store2, port: hanging.port, clock: clock, timeoutMs: 300).deliverDue(endpoint: "a")
        let afterTimeout = try #require(try store2.webhookDeliveries(eventId: slow.id).first)
        #expect(afterTimeout.state == .pending && afterTimeout.lastError?.hasPrefix("timeout") == true)
    }

    @Test func theEventsOfOneSubjectGoOutInTheOrderTheyWereWritten() throws {
        let store = InMemoryRecordStore()
        let clock = Clock()
        let subject = "one-record"
        let ordered = (0..<6).map { Self.event(subject: subject, at: clock.now, n: $0) }
        // The subject's first event is refused once (whichever request of the round reaches it first).
        let refusedOnce = Atomic<Bool>(false)
        let receiver = try StandInServer { _, request in
            guard request.header("webhook-id") == ordered[0].id,
                refusedOnce.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged
            else { return .respond(204) }
            return .respond(500)
        }
        defer { receiver.stop() }
        try store.appendOutboxEvents(ordered + (0..<10).map { Self.event(at: clock.now, n: 100 + $0) })
        let deliverer = try Self.deliverer(store, port: receiver.port, clock: clock, concurrency: 8)
        for _ in 0..<12 {
            deliverer.deliverDue(endpoint: "a")
            clock.advance(1_000)
        }
        let ids = receiver.requests.map { $0.header("webhook-id") ?? "" }
        let ofSubject = ids.filter { id in ordered.contains { $0.id == id } }
        // The first event of the subject failed once: it went again before any later one of the subject.
        #expect(ofSubject == [ordered[0].id] + ordered.map(\.id), "\(ofSubject)")
        #expect(try store.webhookOutboxStats().pending == 0)
    }

    @Test func underTheLeaseOneDelivererSendsAndAnotherTakesOverWhenItStops() async throws {
        let seen = Mutex<[String: Int]>([:])
        let receiver = try StandInServer { _, request in
            seen.withLock { $0[request.header("webhook-id") ?? "", default: 0] += 1 }
            return .respond(200)
        }
        defer { receiver.stop() }
        let store = InMemoryRecordStore()
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let first = (0..<40).map { Self.event(at: now, n: $0) }
        try store.appendOutboxEvents(first)
        // A request starts only while the lease holds for its timeout and a second more: 500 ms of a
        // 6 s lease renewed every 2 s.
        let a = try Self.deliverer(store, port: receiver.port, timeoutMs: 500, holder: "a", leaseTtlMs: 6_000)
        let b = try Self.deliverer(store, port: receiver.port, timeoutMs: 500, holder: "b", leaseTtlMs: 6_000)
        a.start()
        b.start()
        #expect(await eventually(within: 30) { seen.withLock { $0.count } == 40 })
        let holders = a.leasesHeld.load(ordering: .relaxed) + b.leasesHeld.load(ordering: .relaxed)
        #expect(holders == 1)
        // The holder stops (and gives the lease up): the other takes over and delivers what comes next.
        let (holder, other) = a.leasesHeld.load(ordering: .relaxed) == 1 ? (a, b) : (b, a)
        try await onThread { holder.stop() }
        let later = (0..<10).map { Self.event(at: now, n: 100 + $0) }
        try store.appendOutboxEvents(later)
        #expect(await eventually(within: 30) { seen.withLock { $0.count } == 50 })
        #expect(other.leasesHeld.load(ordering: .relaxed) == 1)
        try await onThread { other.stop() }
        // Each event once: nothing was sent by both.
        #expect(seen.withLock { $0.values.allSatisfy { $0 == 1 } })
        #expect(a.delivered.load(ordering: .relaxed) + b.delivered.load(ordering: .relaxed) == 50)
    }

    /// An endpoint that answers no attempt of a round is held: nothing is taken for it until the hold
    /// ends (the schedule's delay, doubling per such round); then one round probes it; once it answers,
    /// everything goes out and the hold is gone.
    @Test func anEndpointThatAnswersNothingIsHeldThenProbed() throws {
        let store = InMemoryRecordStore()
        let clock = Clock()
        let closed = try ClosedPort()
        defer { withExtendedLifetime(closed) {} }
        let reported = Mutex<[WebhookDeliveryEvent]>([])
        let deliverer = try Self.deliverer(store, port: closed.port, clock: clock) { e in
            reported.withLock { $0.append(e) }
        }
        func attempts() throws -> [Int] {
            try store.webhookDeliveries(state: .pending, limit: 100, afterSeq: nil).map(\.attempts)
        }
        try store.appendOutboxEvents((0..<5).map { Self.event(at: clock.now, n: $0) })
        deliverer.deliverDue(endpoint: "a")
        #expect(try attempts() == [1, 1, 1, 1, 1])
        let start = clock.now
        #expect(reported.withLock { $0 } == [.endpointHeld(endpoint: "a", untilMs: start + 100, rounds: 1)])
        // During the hold new events are due at once, and nothing is sent.
        try store.appendOutboxEvents((5..<10).map { Self.event(at: clock.now, n: $0) })
        clock.advance(50)
        deliverer.deliverDue(endpoint: "a")
        #expect(try attempts() == [1, 1, 1, 1, 1, 0, 0, 0, 0, 0])
        // After it, one round probes every due event; still refused: held twice as long.
        clock.advance(60)
        deliverer.deliverDue(endpoint: "a")
        #expect(try attempts() == [2, 2, 2, 2, 2, 1, 1, 1, 1, 1])
        #expect(reported.withLock { $0.last } == .endpointHeld(endpoint: "a", untilMs: clock.now + 200, rounds: 2))
        // The endpoint is back: after the hold and the retries' delays, everything is delivered.
        let listener = try LoopbackListener(port: closed.port) { connection in
            while connection.readRequest() != nil {
                connection.send("HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n")
            }
        }
        defer { listener.stop() }
        clock.advance(500)
        deliverer.deliverDue(endpoint: "a")
        #expect(try store.webhookOutboxStats().pending == 0)
        #expect(deliverer.delivered.load(ordering: .relaxed) == 10)
        #expect(deliverer.holds.withLock { $0.isEmpty })
    }
}
