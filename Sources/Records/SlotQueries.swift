/// The SQL of slots and pending object deletions (schema version 4), in both dialects: the same
/// statements with SQLite's `?n` or PostgreSQL's `$n` placeholders.
struct SlotQueries {
    /// The record a slot points at (?1 owner, ?2 slot), read through the join so that a slot whose
    /// record was deleted since reads as empty.
    let slotRecord: String
    /// The slot a record fills, if any (?1 record id).
    let slotOfRecord: String
    /// Points a slot at a record (?1 owner, ?2 slot, ?3 record id).
    let upsertSlot: String
    /// Queues an object for deletion (?1 key, ?2 now); a key already queued keeps its time.
    let queueDeletion: String
    /// The oldest queued keys (?1 limit).
    let pendingDeletions: String
    /// Removes one queued key (?1 key).
    let finishDeletion: String
    /// Deletes one record by id (?1).
    let deleteRecordById: String

    /// The statements with placeholder `n` written by `p`.
    init(_ p: (Int) -> String) {
        slotRecord = """
            SELECT \(Schema.recordColumns.split(separator: ",").map { "r." + $0.trimmingCharacters() }.joined(separator: ", "))
            FROM record_slots s JOIN records r ON r.id = s.record_id WHERE s.owner_id = \(p(1)) AND s.slot = \(p(2))
            """
        slotOfRecord = "SELECT slot FROM record_slots WHERE record_id = \(p(1))"
        upsertSlot = """
            INSERT INTO record_slots (owner_id, slot, record_id) VALUES (\(p(1)), \(p(2)), \(p(3)))
            ON CONFLICT (owner_id, slot) DO UPDATE SET record_id = excluded.record_id
            """
        queueDeletion = """
            INSERT INTO object_deletions (object_key, requested_at_ms) VALUES (\(p(1)), \(p(2)))
            ON CONFLICT (object_key) DO NOTHING
            """
        pendingDeletions = "SELECT object_key FROM object_deletions ORDER BY requested_at_ms, object_key LIMIT \(p(1))"
        finishDeletion = "DELETE FROM object_deletions WHERE object_key = \(p(1))"
        deleteRecordById = "DELETE FROM records WHERE id = \(p(1))"
    }

    /// SQLite's statements.
    static let sqlite = SlotQueries { "?\($0)" }
    /// PostgreSQL's statements.
    static let postgres = SlotQueries { "$\($0)" }
}

extension Substring {
    /// Without surrounding spaces (column lists are written `a, b, c`).
    fileprivate func trimmingCharacters() -> Substring {
        var s = self
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return s
    }
}

/// The decision `fillSlot` makes, the same in every store: given what is stored, what to do.
package enum SlotPlan {
    /// What the transaction found.
    package struct Found {
        /// The stored record with the new record's image key, if any.
        let stored: ImageRecord?
        /// The record the slot points at now, if any.
        let current: ImageRecord?
        /// The slot the stored record fills, if any.
        let storedSlot: String?

        /// What was found.
        package init(stored: ImageRecord?, current: ImageRecord?, storedSlot: String?) {
            self.stored = stored
            self.current = current
            self.storedSlot = storedSlot
        }
    }

    /// What the transaction must do.
    package enum Step: Equatable {
        /// Answer with this outcome and change nothing.
        case answer(SlotOutcome)
        /// Insert the record when `insert`, point the slot at `target`, delete `previous` when given.
        case fill(target: ImageRecord, insert: Bool, previous: ImageRecord?, deletePrevious: Bool)
    }

    /// The step for `record` in `slot` given what was found.
    package static func step(for record: ImageRecord, slot: String, found: Found, deletePrevious: Bool) -> Step {
        var target = record
        var insert = true
        if let stored = found.stored {
            guard stored.ownerId == record.ownerId else { return .answer(.recordedByAnotherUser(stored)) }
            if let current = found.current, current.id == stored.id { return .answer(.unchanged(stored)) }
            if let other = found.storedSlot, other != slot { return .answer(.inAnotherSlot(stored, slot: other)) }
            target = stored
            insert = false
        }
        return .fill(target: target, insert: insert, previous: found.current, deletePrevious: deletePrevious)
    }

    /// The outcome of a `fill` step, once committed.
    package static func outcome(target: ImageRecord, previous: ImageRecord?, deletePrevious: Bool) -> SlotOutcome {
        let objectToDelete =
            deletePrevious ? previous.flatMap { $0.objectKey == target.objectKey ? nil : $0.objectKey } : nil
        return .filled(target, previous: previous, objectToDelete: objectToDelete)
    }
}
