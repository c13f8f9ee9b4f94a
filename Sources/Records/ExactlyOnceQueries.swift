/// The SQL of claims, the event inbox and the multipart ledger (schema version 7), in both dialects: the
/// same statements with SQLite's `?n` or PostgreSQL's `$n` placeholders.
package struct ExactlyOnceQueries {
    /// The columns of `intent_claims`, in the order the row readers expect.
    static let claimColumns =
        "image_key, intent_created_at_ms, claimant, token, state, lease_until_ms, claimed_at_ms, updated_at_ms, record_id, reason"
    /// The columns of `multipart_uploads`, in the order the row readers expect.
    static let uploadColumns = "object_key, upload_id, image_key, owner_id, created_at_ms, parts, completing_at_ms"

    /// One claim (?1 key).
    let claimByKey: String
    /// Writes a claim (the claim columns in order), replacing the key's row.
    let upsertClaim: String
    /// Extends a held claim (?1 key, ?2 token, ?3 lease until, ?4 now).
    let renewClaim: String
    /// Removes a held claim (?1 key, ?2 token).
    let releaseClaim: String
    /// Settles a held claim (?1 key, ?2 token, ?3 state, ?4 record id, ?5 reason, ?6 now).
    let settleClaim: String
    /// Removes settled claims changed before ?1, at most ?2.
    let pruneClaims: String

    /// Inserts an event (?1 source, ?2 body, ?3 received at), answering its id.
    let insertEvent: String
    /// Counts the pending entries up to ?1 (stops there).
    let pendingEvents: String
    /// Takes due entries (?1 now, ?2 lease until, ?3 token, ?4 limit), answering them.
    let takeEvents: String
    /// Settles a taken entry (?1 id, ?2 token, ?3 state, ?4 reason, ?5 now).
    let settleEvent: String
    /// Makes a taken entry due again (?1 id, ?2 token, ?3 due at, ?4 reason).
    let retryEvent: String
    /// Counts per state with the oldest receipt.
    let eventStats: String
    /// Removes finished entries finished before ?1, at most ?2.
    let pruneEvents: String

    /// Writes an upload (the upload columns in order), replacing the same (key, id).
    let upsertUpload: String
    /// One upload (?1 key, ?2 upload id).
    let uploadByRef: String
    /// Notes a completion (?1 key, ?2 upload id, ?3 parts, ?4 now).
    let noteCompletion: String
    /// The oldest uploads created before ?1, at most ?2.
    let staleUploads: String
    /// Removes one upload (?1 key, ?2 upload id).
    let removeUpload: String

    /// The statements with placeholder `n` written by `p`; `body` reads the inbox body column (PostgreSQL
    /// sends bytea as hex text), `skipLocked` ends the take's inner SELECT (PostgreSQL's row locks).
    init(_ p: (Int) -> String, body: String, skipLocked: String) {
        let claims = Self.claimColumns
        claimByKey = "SELECT \(claims) FROM intent_claims WHERE image_key = \(p(1))"
        upsertClaim = """
            INSERT INTO intent_claims (\(claims)) VALUES (\((1...10).map(p).joined(separator: ", ")))
            ON CONFLICT (image_key) DO UPDATE SET intent_created_at_ms = excluded.intent_created_at_ms,
            claimant = excluded.claimant, token = excluded.token, state = excluded.state,
            lease_until_ms = excluded.lease_until_ms, claimed_at_ms = excluded.claimed_at_ms,
            updated_at_ms = excluded.updated_at_ms, record_id = excluded.record_id, reason = excluded.reason
            """
        renewClaim = """
            UPDATE intent_claims SET lease_until_ms = \(p(3)), updated_at_ms = \(p(4))
            WHERE image_key = \(p(1)) AND token = \(p(2)) AND state = 'claimed'
            """
        releaseClaim =
            "DELETE FROM intent_claims WHERE image_key = \(p(1)) AND token = \(p(2)) AND state = 'claimed'"
        settleClaim = """
            UPDATE intent_claims SET state = \(p(3)), record_id = \(p(4)), reason = \(p(5)), updated_at_ms = \(p(6))
            WHERE image_key = \(p(1)) AND token = \(p(2)) AND state = 'claimed'
            """
        pruneClaims = """
            DELETE FROM intent_claims WHERE image_key IN (SELECT image_key FROM intent_claims
            WHERE updated_at_ms < \(p(1)) AND state <> 'claimed' ORDER BY updated_at_ms LIMIT \(p(2)))
            """
        let events = "id, source, \(body), received_at_ms, attempts, state, reason"
        insertEvent = """
            INSERT INTO event_inbox (source, body, received_at_ms, attempts, state, due_at_ms)
            VALUES (\(p(1)), \(p(2)), \(p(3)), 0, 'pending', \(p(3))) RETURNING id
            """
        pendingEvents =
            "SELECT count(*) FROM (SELECT 1 FROM event_inbox WHERE state = 'pending' LIMIT \(p(1))) AS pending"
        takeEvents = """
            UPDATE event_inbox SET attempts = attempts + 1, due_at_ms = \(p(2)), lease_token = \(p(3))
            WHERE id IN (SELECT id FROM event_inbox WHERE state = 'pending' AND due_at_ms <= \(p(1))
            ORDER BY due_at_ms, id LIMIT \(p(4))\(skipLocked)) RETURNING \(events)
            """
        settleEvent = """
            UPDATE event_inbox SET state = \(p(3)), reason = \(p(4)), finished_at_ms = \(p(5)), lease_token = NULL
            WHERE id = \(p(1)) AND lease_token = \(p(2)) AND state = 'pending'
            """
        retryEvent = """
            UPDATE event_inbox SET due_at_ms = \(p(3)), reason = \(p(4)), lease_token = NULL
            WHERE id = \(p(1)) AND lease_token = \(p(2)) AND state = 'pending'
            """
        eventStats = "SELECT state, count(*), min(received_at_ms) FROM event_inbox GROUP BY state"
        pruneEvents = """
            DELETE FROM event_inbox WHERE id IN (SELECT id FROM event_inbox
            WHERE state <> 'pending' AND finished_at_ms < \(p(1)) ORDER BY id LIMIT \(p(2)))
            """
        let uploads = Self.uploadColumns
        upsertUpload = """
            INSERT INTO multipart_uploads (\(uploads)) VALUES (\((1...7).map(p).joined(separator: ", ")))
            ON CONFLICT (object_key, upload_id) DO UPDATE SET image_key = excluded.image_key,
            owner_id = excluded.owner_id, created_at_ms = excluded.created_at_ms, parts = excluded.parts,
            completing_at_ms = excluded.completing_at_ms
            """
        uploadByRef = "SELECT \(uploads) FROM multipart_uploads WHERE object_key = \(p(1)) AND upload_id = \(p(2))"
        noteCompletion = """
            UPDATE multipart_uploads SET parts = \(p(3)), completing_at_ms = \(p(4))
            WHERE object_key = \(p(1)) AND upload_id = \(p(2))
            """
        staleUploads = """
            SELECT \(uploads) FROM multipart_uploads WHERE created_at_ms < \(p(1))
            ORDER BY created_at_ms, object_key, upload_id LIMIT \(p(2))
            """
        removeUpload = "DELETE FROM multipart_uploads WHERE object_key = \(p(1)) AND upload_id = \(p(2))"
    }

    /// SQLite's statements.
    static let sqlite = ExactlyOnceQueries({ "?\($0)" }, body: "body", skipLocked: "")
    /// PostgreSQL's statements.
    static let postgres = ExactlyOnceQueries(
        { "$\($0)" }, body: "encode(body, 'hex')", skipLocked: " FOR UPDATE SKIP LOCKED")

    /// A claim's values in `claimColumns` order.
    static func values(of claim: IntentClaim) -> [SQLValue] {
        [
            .text(claim.imageKey), .int(claim.intentCreatedAtMs), .text(claim.claimant), .text(claim.token),
            .text(claim.state.rawValue), .int(claim.leaseUntilMs), .int(claim.claimedAtMs), .int(claim.updatedAtMs),
            .optionalText(claim.recordId), .optionalText(claim.reason),
        ]
    }

    /// An upload's values in `uploadColumns` order.
    static func values(of upload: MultipartUploadEntry) throws(RecordsError) -> [SQLValue] {
        [
            .text(upload.objectKey), .text(upload.uploadId), .text(upload.imageKey), .text(upload.ownerId),
            .int(upload.createdAtMs), .optionalText(try upload.completionParts.map(encodeParts)),
            .optionalInt(upload.completingAtMs),
        ]
    }

    /// Parts as stored: `<number> <etag>` lines. An ETag with a space or a line feed is `.constraint`.
    package static func encodeParts(_ parts: [MultipartUploadEntry.Part]) throws(RecordsError) -> String {
        var lines: [String] = []
        lines.reserveCapacity(parts.count)
        for part in parts {
            guard !part.etag.isEmpty, !part.etag.contains(" "), !part.etag.contains("\n") else {
                throw .constraint("a part ETag is empty or holds a space or a line feed")
            }
            lines.append("\(part.number) \(part.etag)")
        }
        return lines.joined(separator: "\n")
    }

    /// Parts from their stored text; nil for text no store wrote.
    package static func decodeParts(_ text: String) -> [MultipartUploadEntry.Part]? {
        guard !text.isEmpty else { return [] }
        var parts: [MultipartUploadEntry.Part] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            guard let space = line.firstIndex(of: " "), let number = Int(line[..<space]) else { return nil }
            parts.append(.init(number: number, etag: String(line[line.index(after: space)...])))
        }
        return parts
    }

    /// The claim state of stored text (an unknown one is corrupt).
    static func claimState(_ text: String) throws(RecordsError) -> IntentClaim.State {
        guard let state = IntentClaim.State(rawValue: text) else {
            throw .corrupt("a claim in the unknown state '\(text.prefix(32))'")
        }
        return state
    }

    /// The inbox state of stored text (an unknown one is corrupt).
    static func eventState(_ text: String) throws(RecordsError) -> InboxEvent.State {
        guard let state = InboxEvent.State(rawValue: text) else {
            throw .corrupt("an inbox entry in the unknown state '\(text.prefix(32))'")
        }
        return state
    }

    /// The checks of `enqueueEvent`'s arguments, the same in every store.
    package static func checkEvent(body: [UInt8], limits: InboxLimits) throws(RecordsError) {
        guard body.count <= limits.maxBodyBytes else {
            throw .invalidArgument("an event of \(body.count) bytes is over the inbox's \(limits.maxBodyBytes)")
        }
    }

    /// The error of a full inbox.
    package static func inboxFull(_ limits: InboxLimits) -> RecordsError {
        .unavailable("the event inbox holds \(limits.maxPending) pending entries: deliver again later")
    }
}
