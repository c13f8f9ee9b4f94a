import Crypto

extension PostgresRecordStore {
    /// `RecordStore.fillSlot` in one transaction, serialised per (owner, slot) by a transaction-scoped
    /// advisory lock, so two replacements of one slot never both keep their record.
    public func fillSlot(
        _ record: ImageRecord, slot: String, deletePrevious: Bool, nowMs: Int64, events: (SlotFill) -> [OutboxEvent]
    ) throws(RecordsError) -> SlotOutcome {
        let q = SlotQueries.postgres
        let lockKey = Self.slotLockKey(ownerId: record.ownerId, slot: slot)
        let outcome = try run { (connection) throws(RecordsError) -> SlotOutcome in
            try connection.transaction { () throws(RecordsError) -> SlotOutcome in
                _ = try connection.execute("SELECT pg_advisory_xact_lock($1)", [.int(lockKey)])
                let storedRows = try connection.executePrepared(PostgresQueries.recordByKey, [.text(record.imageKey)])
                let stored = storedRows.rowCount == 0 ? nil : try Self.record(storedRows, 0)
                let currentRows = try connection.executePrepared(q.slotRecord, [.text(record.ownerId), .text(slot)])
                let current = currentRows.rowCount == 0 ? nil : try Self.record(currentRows, 0)
                var storedSlot: String?
                if let stored {
                    let rows = try connection.executePrepared(q.slotOfRecord, [.text(stored.id)])
                    storedSlot = rows.rowCount == 0 ? nil : rows.text(0, 0)
                }
                let found = SlotPlan.Found(stored: stored, current: current, storedSlot: storedSlot)
                switch SlotPlan.step(for: record, slot: slot, found: found, deletePrevious: deletePrevious) {
                case .answer(let outcome):
                    return outcome
                case .fill(let target, let insert, let previous, let deleting):
                    if insert {
                        let inserted = try connection.execute(
                            PostgresQueries.insertRecords(rows: 1), Schema.values(of: target))
                        guard inserted.rowCount == 1 else {
                            throw RecordsError.unavailable("image key \(target.imageKey) was recorded meanwhile")
                        }
                        // An object recorded again is no longer one to delete.
                        _ = try connection.executePrepared(q.finishDeletion, [.text(target.objectKey)])
                    }
                    _ = try connection.executePrepared(
                        q.upsertSlot, [.text(target.ownerId), .text(slot), .text(target.id)])
                    let outcome = SlotPlan.outcome(target: target, previous: previous, deletePrevious: deleting)
                    if deleting, let previous {
                        _ = try connection.executePrepared(q.deleteRecordById, [.text(previous.id)])
                        if case .filled(_, _, let key?) = outcome {
                            _ = try connection.executePrepared(q.queueDeletion, [.text(key), .int(nowMs)])
                        }
                    }
                    try Self.appendOutbox(
                        events(
                            SlotFill(
                                slot: slot, record: target, inserted: insert, previous: previous,
                                previousDeleted: deleting)), connection)
                    return outcome
                }
            }
        }
        commits.add(1, ordering: .relaxed)
        return outcome
    }

    /// The advisory lock of one (owner, slot): the first 8 bytes of the SHA-256 of both.
    static func slotLockKey(ownerId: String, slot: String) -> Int64 {
        SHA256.hash("slot\u{0}" + ownerId + "\u{0}" + slot).withUnsafeBytes { $0.loadUnaligned(as: Int64.self) }
    }

    /// The record the owner's slot points at.
    public func slotRecord(ownerId: String, slot: String) throws(RecordsError) -> ImageRecord? {
        try run { (connection) throws(RecordsError) in
            let rows = try connection.executePrepared(SlotQueries.postgres.slotRecord, [.text(ownerId), .text(slot)])
            return rows.rowCount == 0 ? nil : try Self.record(rows, 0)
        }
    }

    /// The oldest pending object deletions.
    public func pendingObjectDeletions(limit: Int) throws(RecordsError) -> [String] {
        try RecordStoreLimits.checkBatchLimit(limit)
        return try run { (connection) throws(RecordsError) in
            let rows = try connection.executePrepared(SlotQueries.postgres.pendingDeletions, [.int(Int64(limit))])
            return (0..<rows.rowCount).map { rows.text($0, 0) }
        }
    }

    /// Removes finished deletions, in one transaction.
    public func finishObjectDeletions(_ objectKeys: [String]) throws(RecordsError) {
        guard !objectKeys.isEmpty else { return }
        try run { (connection) throws(RecordsError) in
            try connection.transaction { () throws(RecordsError) in
                for key in objectKeys {
                    _ = try connection.executePrepared(SlotQueries.postgres.finishDeletion, [.text(key)])
                }
            }
        }
        commits.add(1, ordering: .relaxed)
    }
}
