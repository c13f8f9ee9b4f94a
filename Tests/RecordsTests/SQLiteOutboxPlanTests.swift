import Foundation
import TestSupport
import Testing

@testable import Records

/// The SQLite plan of the webhook deliverer's take (`OutboxQueries.due`): each candidate's check for an
/// earlier pending event of its subject is one search of the subject index, whatever the statistics
/// (a file is never `ANALYZE`d). Without `INDEXED BY` the planner took the `(state, seq)` index and read
/// every earlier pending row for each candidate: one take over 20,000 pending rows ran for a minute.
@Suite(.blocking) struct SQLiteOutboxPlanTests {
    @Test func theSubjectCheckSearchesTheSubjectIndex() throws {
        let (store, raw, directory) = try SQLiteIntentRowsTests.store()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = store
        let plan = try raw.query(
            "EXPLAIN QUERY PLAN " + OutboxQueries.sqlite.due, [.text("default"), .int(1), .int(64)]
        ) { $0.text(3) }.joined(separator: " | ")
        #expect(plan.contains("SEARCH d USING INDEX webhook_outbox_due (endpoint=? AND due_at_ms<?)"), "\(plan)")
        #expect(
            plan.contains("SEARCH e USING INDEX webhook_outbox_subject (endpoint=? AND subject=? AND seq<?)"), "\(plan)"
        )
        #expect(!plan.contains("webhook_outbox_state"), "\(plan)")
        #expect(!plan.contains("TEMP B-TREE"), "taken in due order without a sort: \(plan)")
    }

    /// 3,000 pending events of distinct subjects and one subject with two: a take is quick and gives
    /// only the first event of each subject, in due order.
    @Test func aTakeOverABacklogGivesTheFirstOfEachSubject() throws {
        let (store, _, directory) = try SQLiteIntentRowsTests.store()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let events =
            (0..<3_000).map { n in
                OutboxEvent(
                    id: UUID().uuidString, type: "upload.completed", subject: "s-\(n)", body: [1],
                    createdAtMs: Int64(1_000 + n), endpoints: ["default"])
            } + [
                OutboxEvent(
                    id: UUID().uuidString, type: "upload.deleted", subject: "s-0", body: [2], createdAtMs: 500,
                    endpoints: ["default"])
            ]
        try store.appendOutboxEvents(events)
        let due = try store.dueWebhookDeliveries(endpoint: "default", nowMs: 10_000, limit: 64)
        // The later event of s-0 (written last, due first) waits for the first one.
        #expect(due.count == 64)
        #expect(due.map(\.subject) == (0..<64).map { "s-\($0)" })
        #expect(!due.contains { $0.type == "upload.deleted" })
    }
}
