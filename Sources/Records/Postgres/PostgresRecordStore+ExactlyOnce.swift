import Crypto

extension PostgresRecordStore: ClaimStore, EventInbox, MultipartLedger {
    /// The statements.
    private var q: ExactlyOnceQueries { ExactlyOnceQueries.postgres }

    /// `ClaimStore.claimIntent` in one transaction under the key's advisory lock, so that claimants of
    /// several instances decide one after another.
    public func claimIntent(_ request: ClaimRequest) throws(RecordsError) -> ClaimOutcome {
        let outcome = try run { (connection) throws(RecordsError) -> ClaimOutcome in
            try connection.transaction { () throws(RecordsError) -> ClaimOutcome in
                _ = try connection.execute(
                    "SELECT pg_advisory_xact_lock($1)", [.int(Self.claimLockKey(request.imageKey))])
                let records = try connection.executePrepared(PostgresQueries.recordByKey, [.text(request.imageKey)])
                let record = records.rowCount == 0 ? nil : try Self.record(records, 0)
                let current = try claimRow(request.imageKey, connection)
                switch ClaimPlan.step(for: request, record: record, current: current) {
                case .answer(let outcome):
                    return outcome
                case .take(let claim, let previous):
                    _ = try connection.executePrepared(q.upsertClaim, ExactlyOnceQueries.values(of: claim))
                    return .won(claim, tookOverFrom: previous)
                }
            }
        }
        commits.add(1, ordering: .relaxed)
        return outcome
    }

    /// `ClaimStore.renewClaim`.
    public func renewClaim(imageKey: String, token: String, nowMs: Int64, leaseMs: Int64) throws(RecordsError)
        -> Bool
    {
        try change(q.renewClaim, [.text(imageKey), .text(token), .int(nowMs + max(0, leaseMs)), .int(nowMs)]) == 1
    }

    /// `ClaimStore.releaseClaim`.
    public func releaseClaim(imageKey: String, token: String) throws(RecordsError) -> Bool {
        try change(q.releaseClaim, [.text(imageKey), .text(token)]) == 1
    }

    /// `ClaimStore.recordClaimed` in one transaction, each key under its advisory lock (taken in key
    /// order, so two batches never wait for each other in a circle).
    public func recordClaimed(_ claimed: [ClaimedRecord], nowMs: Int64) throws(RecordsError) -> [ClaimFinish] {
        guard !claimed.isEmpty else { return [] }
        let finishes = try run { (connection) throws(RecordsError) -> [ClaimFinish] in
            try connection.transaction { () throws(RecordsError) -> [ClaimFinish] in
                for key in Set(claimed.map(\.record.imageKey)).sorted() {
                    _ = try connection.execute("SELECT pg_advisory_xact_lock($1)", [.int(Self.claimLockKey(key))])
                }
                var finishes: [ClaimFinish] = []
                var events: [OutboxEvent] = []
                for item in claimed {
                    let (record, token) = (item.record, item.token)
                    let current = try claimRow(record.imageKey, connection)
                    guard ClaimPlan.holds(current, token: token) else {
                        finishes.append(.fenced(current))
                        continue
                    }
                    let inserted = try connection.execute(
                        PostgresQueries.insertRecords(rows: 1), Schema.values(of: record))
                    var finish = ClaimFinish.recorded(record)
                    if inserted.rowCount != 1 {
                        let rows = try connection.executePrepared(PostgresQueries.recordByKey, [.text(record.imageKey)])
                        guard rows.rowCount == 1 else {
                            throw RecordsError.unavailable("the record of \(record.imageKey) vanished while inserting")
                        }
                        let stored = try Self.record(rows, 0)
                        finish = stored.id == record.id ? .recorded(stored) : .existing(stored)
                    }
                    let id: String
                    switch finish {
                    case .recorded(let r), .existing(let r): id = r.id
                    case .fenced: id = record.id
                    }
                    _ = try connection.executePrepared(
                        q.settleClaim,
                        [.text(record.imageKey), .text(token), .text("recorded"), .text(id), .null, .int(nowMs)])
                    if case .recorded = finish { events += item.events }
                    finishes.append(finish)
                }
                try Self.appendOutbox(events, connection)
                return finishes
            }
        }
        commits.add(1, ordering: .relaxed)
        return finishes
    }

    /// `ClaimStore.expireClaim`.
    public func expireClaim(imageKey: String, token: String, reason: String, nowMs: Int64, events: [OutboxEvent])
        throws(RecordsError) -> Bool
    {
        let values: [SQLValue] = [.text(imageKey), .text(token), .text("expired"), .null, .text(reason), .int(nowMs)]
        guard events.contains(where: { !$0.endpoints.isEmpty }) else { return try change(q.settleClaim, values) == 1 }
        let settled = try run { (connection) throws(RecordsError) -> Bool in
            try connection.transaction { () throws(RecordsError) -> Bool in
                guard try connection.executePrepared(q.settleClaim, values).affectedRows == 1 else { return false }
                try Self.appendOutbox(events, connection)
                return true
            }
        }
        commits.add(1, ordering: .relaxed)
        return settled
    }

    /// `ClaimStore.claim`.
    public func claim(imageKey: String) throws(RecordsError) -> IntentClaim? {
        try run { (connection) throws(RecordsError) in try claimRow(imageKey, connection) }
    }

    /// `ClaimStore.pruneClaims`.
    public func pruneClaims(settledBeforeMs beforeMs: Int64, limit: Int) throws(RecordsError) -> Int {
        try RecordStoreLimits.checkBatchLimit(limit)
        return try change(q.pruneClaims, [.int(beforeMs), .int(Int64(limit))])
    }

    /// `EventInbox.enqueueEvent`: the count and the insert in one transaction.
    public func enqueueEvent(source: String, body: [UInt8], receivedAtMs: Int64, limits: InboxLimits)
        throws(RecordsError) -> Int64
    {
        try ExactlyOnceQueries.checkEvent(body: body, limits: limits)
        let id = try run { (connection) throws(RecordsError) -> Int64 in
            try connection.transaction { () throws(RecordsError) -> Int64 in
                let pending = try connection.executePrepared(q.pendingEvents, [.int(Int64(limits.maxPending))])
                guard try pending.int64(0, 0) < Int64(limits.maxPending) else {
                    throw ExactlyOnceQueries.inboxFull(limits)
                }
                let rows = try connection.executePrepared(
                    q.insertEvent, [.text(source), .blob(body), .int(receivedAtMs)])
                return try rows.int64(0, 0)
            }
        }
        commits.add(1, ordering: .relaxed)
        return id
    }

    /// `EventInbox.takeEvents` (`FOR UPDATE SKIP LOCKED`: instances take disjoint entries).
    public func takeEvents(nowMs: Int64, limit: Int, leaseMs: Int64, token: String) throws(RecordsError)
        -> [InboxEvent]
    {
        try RecordStoreLimits.checkBatchLimit(limit)
        let events = try run { (connection) throws(RecordsError) -> [InboxEvent] in
            let rows = try connection.executePrepared(
                q.takeEvents, [.int(nowMs), .int(nowMs + max(0, leaseMs)), .text(token), .int(Int64(limit))])
            return try (0..<rows.rowCount).map { (row) throws(RecordsError) in
                guard let body = Hex.decode(rows.text(row, 2)) else { throw .corrupt("an inbox body is not bytea hex") }
                return InboxEvent(
                    id: try rows.int64(row, 0), source: rows.text(row, 1), body: body,
                    receivedAtMs: try rows.int64(row, 3), attempts: Int(try rows.int64(row, 4)),
                    state: try ExactlyOnceQueries.eventState(rows.text(row, 5)), reason: rows.optionalText(row, 6))
            }
        }
        commits.add(1, ordering: .relaxed)
        return events.sorted { $0.id < $1.id }
    }

    /// `EventInbox.finishEvent`.
    public func finishEvent(id: Int64, token: String, outcome: InboxOutcome, nowMs: Int64) throws(RecordsError)
        -> Bool
    {
        switch outcome {
        case .done:
            return try change(q.settleEvent, [.int(id), .text(token), .text("done"), .null, .int(nowMs)]) == 1
        case .rejected(let reason):
            return try change(q.settleEvent, [.int(id), .text(token), .text("rejected"), .text(reason), .int(nowMs)])
                == 1
        case .retry(let dueAtMs, let reason):
            return try change(q.retryEvent, [.int(id), .text(token), .int(dueAtMs), .text(reason)]) == 1
        }
    }

    /// `EventInbox.inboxStats`.
    public func inboxStats() throws(RecordsError) -> InboxStats {
        let rows = try run { (connection) throws(RecordsError) -> [(String, Int64, Int64?)] in
            let rows = try connection.executePrepared(q.eventStats, [])
            return try (0..<rows.rowCount).map { (row) throws(RecordsError) in
                (rows.text(row, 0), try rows.int64(row, 1), try rows.optionalInt64(row, 2))
            }
        }
        return ExactlyOnceStats.inbox(rows)
    }

    /// `EventInbox.pruneEvents`.
    public func pruneEvents(finishedBeforeMs beforeMs: Int64, limit: Int) throws(RecordsError) -> Int {
        try RecordStoreLimits.checkBatchLimit(limit)
        return try change(q.pruneEvents, [.int(beforeMs), .int(Int64(limit))])
    }

    /// `MultipartLedger.putMultipartUpload`.
    public func putMultipartUpload(_ upload: MultipartUploadEntry) throws(RecordsError) {
        _ = try change(q.upsertUpload, try ExactlyOnceQueries.values(of: upload))
    }

    /// `MultipartLedger.multipartUpload`.
    public func multipartUpload(objectKey: String, uploadId: String) throws(RecordsError) -> MultipartUploadEntry? {
        try run { (connection) throws(RecordsError) in
            let rows = try connection.executePrepared(q.uploadByRef, [.text(objectKey), .text(uploadId)])
            return rows.rowCount == 0 ? nil : try Self.upload(rows, 0)
        }
    }

    /// `MultipartLedger.noteCompletion`.
    public func noteCompletion(
        objectKey: String, uploadId: String, parts: [MultipartUploadEntry.Part], nowMs: Int64
    ) throws(RecordsError) -> Bool {
        let text = try ExactlyOnceQueries.encodeParts(parts)
        return try change(q.noteCompletion, [.text(objectKey), .text(uploadId), .text(text), .int(nowMs)]) == 1
    }

    /// `MultipartLedger.multipartUploads(createdBeforeMs:limit:)`.
    public func multipartUploads(createdBeforeMs beforeMs: Int64, limit: Int) throws(RecordsError)
        -> [MultipartUploadEntry]
    {
        try RecordStoreLimits.checkBatchLimit(limit)
        return try run { (connection) throws(RecordsError) in
            let rows = try connection.executePrepared(q.staleUploads, [.int(beforeMs), .int(Int64(limit))])
            return try (0..<rows.rowCount).map { (row) throws(RecordsError) in try Self.upload(rows, row) }
        }
    }

    /// `MultipartLedger.removeMultipartUploads`, in one transaction.
    public func removeMultipartUploads(_ uploads: [(objectKey: String, uploadId: String)]) throws(RecordsError) {
        guard !uploads.isEmpty else { return }
        try run { (connection) throws(RecordsError) in
            try connection.transaction { () throws(RecordsError) in
                for upload in uploads {
                    _ = try connection.executePrepared(
                        q.removeUpload, [.text(upload.objectKey), .text(upload.uploadId)])
                }
            }
        }
        commits.add(1, ordering: .relaxed)
    }

    /// Runs one prepared write statement on its own (PostgreSQL commits it alone); the rows it changed.
    private func change(_ sql: String, _ values: [SQLValue]) throws(RecordsError) -> Int {
        let changed = try run { (connection) throws(RecordsError) -> Int in
            try connection.executePrepared(sql, values).affectedRows
        }
        commits.add(1, ordering: .relaxed)
        return changed
    }

    /// The claim row of `imageKey` on `connection`.
    private func claimRow(_ imageKey: String, _ connection: PostgresConnection) throws(RecordsError) -> IntentClaim? {
        let rows = try connection.executePrepared(q.claimByKey, [.text(imageKey)])
        guard rows.rowCount > 0 else { return nil }
        return IntentClaim(
            imageKey: rows.text(0, 0), intentCreatedAtMs: try rows.int64(0, 1), claimant: rows.text(0, 2),
            token: rows.text(0, 3), state: try ExactlyOnceQueries.claimState(rows.text(0, 4)),
            leaseUntilMs: try rows.int64(0, 5), claimedAtMs: try rows.int64(0, 6), updatedAtMs: try rows.int64(0, 7),
            recordId: rows.optionalText(0, 8), reason: rows.optionalText(0, 9))
    }

    /// An upload from row `row` in `uploadColumns` order.
    private static func upload(_ rows: PostgresResult, _ row: Int) throws(RecordsError) -> MultipartUploadEntry {
        var parts: [MultipartUploadEntry.Part]?
        if let text = rows.optionalText(row, 5) {
            guard let decoded = ExactlyOnceQueries.decodeParts(text) else {
                throw .corrupt("the parts of an upload cannot be read")
            }
            parts = decoded
        }
        return MultipartUploadEntry(
            objectKey: rows.text(row, 0), uploadId: rows.text(row, 1), imageKey: rows.text(row, 2),
            ownerId: rows.text(row, 3), createdAtMs: try rows.int64(row, 4), completionParts: parts,
            completingAtMs: try rows.optionalInt64(row, 6))
    }

    /// The advisory lock of one image key's claim: the first 8 bytes of the SHA-256 of it.
    static func claimLockKey(_ imageKey: String) -> Int64 {
        SHA256.hash("claim\u{0}" + imageKey).withUnsafeBytes { $0.loadUnaligned(as: Int64.self) }
    }
}
