import Foundation
import JSON
import TestSupport
import Testing

/// Webhooks from three instances of the real binary on one PostgreSQL behind HAProxy
/// (`scripts/instances.sh`): one instance at a time delivers the outbox (the endpoint's lease), every
/// event reaches the receiver, no event is ever in flight from two instances at once, and when the
/// holder is killed another takes the deliveries over.
@Suite("Webhooks across instances on one PostgreSQL", .serialized, .onDispatchThreads)
struct WebhooksInstancesTests {
    /// Issues and confirms `count` uploads through `port` as `user` (client B's flow, storage unchecked).
    static func record(_ count: Int, port: Int, user: String) async throws -> [String] {
        var keys: [String] = []
        for _ in 0..<count {
            let key = UUID().uuidString
            let issued = try await ReadURLsInstancesTests.call(
                port, "POST", "/presigned-url", user: user, body: #"{"contentType":"image/jpeg","imageKey":"\#(key)"}"#)
            try #require(issued.status == 200, "\(issued.text)")
            let confirmed = try await ReadURLsInstancesTests.call(
                port, "POST", "/images", user: user, body: #"{"imageKey":"\#(key)"}"#)
            try #require(confirmed.status == 201, "\(confirmed.text)")
            keys.append(key.lowercased())
        }
        return keys
    }

    /// Which instance holds the endpoint's lease (`presignd_webhook_leases_held` 1), if one does.
    static func holder(_ ports: [Int]) async throws -> Int? {
        for (n, port) in ports.enumerated() {
            let metrics = try await ReadURLsInstancesTests.call(port, "GET", "/metrics", user: "ops").text
            if metrics.contains("presignd_webhook_leases_held 1") { return n }
        }
        return nil
    }

    @Test("three instances: every event delivered, none by two at once; the holder killed, another takes over")
    func oneInstanceAtATimeDelivers() async throws {
        // Each answer takes 100 ms: two instances sending one event would overlap at the receiver.
        let receiver = try WebhookReceiver(holdMs: 100)
        defer { receiver.down() }
        var extra = receiver.settings
        extra["PRESIGN_S3_VERIFY_UPLOADS"] = "false"
        extra["PRESIGN_RECORDS_LEASE_TTL_MS"] = "3000"
        extra["PRESIGN_WEBHOOKS_TIMEOUT_MS"] = "1000"
        let harness = try await InstancesHarness.start(extra: extra)
        defer { harness.stop() }
        let ports = try (0..<3).map { try harness.instancePort($0) }
        let user = "wi-\(UUID().uuidString.prefix(8).lowercased())"
        var keys = try await Self.record(40, port: harness.port, user: user)
        #expect(
            await eventually(within: 60) { receiver.events(ofType: "upload.completed").count == 40 },
            "\(receiver.events.count) of 40")
        let holder = try #require(try await Self.holder(ports))
        // The holder dies with events waiting: another instance takes the lease over when it runs out.
        keys += try await Self.record(20, port: ports[(holder + 1) % 3], user: user)
        try await harness.kill9(holder)
        keys += try await Self.record(20, port: ports[(holder + 2) % 3], user: user)
        #expect(
            await eventually(within: 90) { receiver.events(ofType: "upload.completed").count == 80 },
            "\(receiver.events.count) of 80")
        let delivered = Set(
            receiver.events(ofType: "upload.completed").compactMap { $0.data?["imageKey"]?.stringValue })
        #expect(delivered == Set(keys))
        let next = try await Self.holder(ports.enumerated().filter { $0.offset != holder }.map(\.element))
        #expect(next != nil, "another instance holds the lease")
        // Never one event from two instances at once; an event sent again (the killed holder's last,
        // unsettled) only under its own id.
        #expect(receiver.overlaps.isEmpty, "\(receiver.overlaps)")
        var idsByKey: [String: Set<String>] = [:]
        for d in receiver.deliveries { idsByKey[d.data?["imageKey"]?.stringValue ?? "", default: []].insert(d.id) }
        #expect(idsByKey.values.allSatisfy { $0.count == 1 })
        try await harness.up(holder)
        try WebhooksFlowTests.expectVerified(receiver)
    }
}
