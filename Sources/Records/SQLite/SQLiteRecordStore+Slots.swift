extension SQLiteRecordStore {
    /// `RecordStore.fillSlot` in one durable `BEGIN IMMEDIATE` transaction on the writer.
    public func fillSlot(
        _ record: ImageRecord, slot: String, deletePrevious: Bool, nowMs: Int64, events: (SlotFill) -> [OutboxEvent]
    ) throws(RecordsError) -> SlotOutcome {
        let q = SlotQueries.sqlite
        return try write { (connection) throws(RecordsError) -> SlotOutcome in
            let stored = try connection.query(
                SQLiteQueries.recordByKey, [.text(record.imageKey)], row: Self.record(from:)
            ).first
            let current = try connection.query(
                q.slotRecord, [.text(record.ownerId), .text(slot)], row: Self.record(from:)
            ).first
            let storedSlot = try stored.flatMap { (s) throws(RecordsError) in
                try connection.query(q.slotOfRecord, [.text(s.id)]) { $0.text(0) }.first
            }
            let found = SlotPlan.Found(stored: stored, current: current, storedSlot: storedSlot)
            switch SlotPlan.step(for: record, slot: slot, found: found, deletePrevious: deletePrevious) {
            case .answer(let outcome):
                return outcome
            case .fill(let target, let insert, let previous, let deleting):
                if insert {
                    try connection.run(SQLiteQueries.insertRecord, Schema.values(of: target))
                    // An object recorded again is no longer one to delete.
                    try connection.run(q.finishDeletion, [.text(target.objectKey)])
                }
                try connection.run(q.upsertSlot, [.text(target.ownerId), .text(slot), .text(target.id)])
                let outcome = SlotPlan.outcome(target: target, previous: previous, deletePrevious: deleting)
                if deleting, let previous {
                    try connection.run(q.deleteRecordById, [.text(previous.id)])
                    if case .filled(_, _, let key?) = outcome {
                        try connection.run(q.queueDeletion, [.text(key), .int(nowMs)])
                    }
                }
                try appendOutbox(
                    events(
                        SlotFill(
                            slot: slot, record: target, inserted: insert, previous: previous, previousDeleted: deleting)
                    ),
                    connection)
                return outcome
            }
        }
    }

    /// The record the owner's slot points at.
    public func slotRecord(ownerId: String, slot: String) throws(RecordsError) -> ImageRecord? {
        try read { (connection) throws(RecordsError) in
            try connection.query(
                SlotQueries.sqlite.slotRecord, [.text(ownerId), .text(slot)], row: Self.record(from:)
            ).first
        }
    }

    /// The oldest pending object deletions.
    public func pendingObjectDeletions(limit: Int) throws(RecordsError) -> [String] {
        try RecordStoreLimits.checkBatchLimit(limit)
        return try read { (connection) throws(RecordsError) in
            try connection.query(SlotQueries.sqlite.pendingDeletions, [.int(Int64(limit))]) { $0.text(0) }
        }
    }

    /// Removes finished deletions, in one transaction.
    public func finishObjectDeletions(_ objectKeys: [String]) throws(RecordsError) {
        guard !objectKeys.isEmpty else { return }
        try write { (connection) throws(RecordsError) in
            for key in objectKeys { try connection.run(SlotQueries.sqlite.finishDeletion, [.text(key)]) }
        }
    }
}
