extension SQLiteRecordStore: ClaimStore, EventInbox, MultipartLedger {
    /// The statements.
    private var q: ExactlyOnceQueries { ExactlyOnceQueries.sqlite }

    /// `ClaimStore.claimIntent` in one `BEGIN IMMEDIATE` transaction on the writer, committed without its
    /// own fsync (like intent batches: it survives a crash of the process; the next durable commit syncs it).
    public func claimIntent(_ request: ClaimRequest) throws(RecordsError) -> ClaimOutcome {
        try write(durable: false) { (connection) throws(RecordsError) -> ClaimOutcome in
            let record = try connection.query(
                SQLiteQueries.recordByKey, [.text(request.imageKey)], row: Self.record(from:)
            ).first
            let current = try connection.query(q.claimByKey, [.text(request.imageKey)], row: Self.claim(from:)).first
            switch ClaimPlan.step(for: request, record: record, current: current) {
            case .answer(let outcome):
                return outcome
            case .take(let claim, let previous):
                try connection.run(q.upsertClaim, ExactlyOnceQueries.values(of: claim))
                return .won(claim, tookOverFrom: previous)
            }
        }
    }

    /// `ClaimStore.renewClaim`.
    public func renewClaim(imageKey: String, token: String, nowMs: Int64, leaseMs: Int64) throws(RecordsError)
        -> Bool
    {
        try write(durable: false) { (connection) throws(RecordsError) -> Bool in
            try connection.run(
                q.renewClaim, [.text(imageKey), .text(token), .int(nowMs + max(0, leaseMs)), .int(nowMs)]) == 1
        }
    }

    /// `ClaimStore.releaseClaim`.
    public func releaseClaim(imageKey: String, token: String) throws(RecordsError) -> Bool {
        try write(durable: false) { (connection) throws(RecordsError) -> Bool in
            try connection.run(q.releaseClaim, [.text(imageKey), .text(token)]) == 1
        }
    }

    /// `ClaimStore.recordClaimed` in one durable transaction.
    public func recordClaimed(_ claimed: [ClaimedRecord], nowMs: Int64) throws(RecordsError) -> [ClaimFinish] {
        guard !claimed.isEmpty else { return [] }
        return try write { (connection) throws(RecordsError) -> [ClaimFinish] in
            var finishes: [ClaimFinish] = []
            finishes.reserveCapacity(claimed.count)
            for item in claimed {
                let (record, token) = (item.record, item.token)
                let current = try connection.query(q.claimByKey, [.text(record.imageKey)], row: Self.claim(from:))
                    .first
                guard ClaimPlan.holds(current, token: token) else {
                    finishes.append(.fenced(current))
                    continue
                }
                var finish = ClaimFinish.recorded(record)
                if try connection.run(SQLiteQueries.insertRecord, Schema.values(of: record)) != 1 {
                    guard
                        let stored = try connection.query(
                            SQLiteQueries.recordByKey, [.text(record.imageKey)], row: Self.record(from:)
                        ).first
                    else { throw .corrupt("insert of image key \(record.imageKey) conflicted but no record has it") }
                    finish = stored.id == record.id ? .recorded(stored) : .existing(stored)
                }
                let id: String
                switch finish {
                case .recorded(let r), .existing(let r): id = r.id
                case .fenced: id = record.id
                }
                try connection.run(
                    q.settleClaim,
                    [.text(record.imageKey), .text(token), .text("recorded"), .text(id), .null, .int(nowMs)])
                if case .recorded = finish { try appendOutbox(item.events, connection) }
                finishes.append(finish)
            }
            return finishes
        }
    }

    /// `ClaimStore.expireClaim`.
    public func expireClaim(imageKey: String, token: String, reason: String, nowMs: Int64, events: [OutboxEvent])
        throws(RecordsError) -> Bool
    {
        try write(durable: false) { (connection) throws(RecordsError) -> Bool in
            let settled =
                try connection.run(
                    q.settleClaim,
                    [.text(imageKey), .text(token), .text("expired"), .null, .text(reason), .int(nowMs)]) == 1
            if settled { try appendOutbox(events, connection) }
            return settled
        }
    }

    /// `ClaimStore.claim`.
    public func claim(imageKey: String) throws(RecordsError) -> IntentClaim? {
        try read { (connection) throws(RecordsError) in
            try connection.query(q.claimByKey, [.text(imageKey)], row: Self.claim(from:)).first
        }
    }

    /// `ClaimStore.pruneClaims`.
    public func pruneClaims(settledBeforeMs beforeMs: Int64, limit: Int) throws(RecordsError) -> Int {
        try RecordStoreLimits.checkBatchLimit(limit)
        return try write(durable: false) { (connection) throws(RecordsError) -> Int in
            try connection.run(q.pruneClaims, [.int(beforeMs), .int(Int64(limit))])
        }
    }

    /// `EventInbox.enqueueEvent` in one durable transaction.
    public func enqueueEvent(source: String, body: [UInt8], receivedAtMs: Int64, limits: InboxLimits)
        throws(RecordsError) -> Int64
    {
        try ExactlyOnceQueries.checkEvent(body: body, limits: limits)
        return try write { (connection) throws(RecordsError) -> Int64 in
            let pending = try connection.query(q.pendingEvents, [.int(Int64(limits.maxPending))]) { $0.int64(0) }
            guard (pending.first ?? 0) < Int64(limits.maxPending) else { throw ExactlyOnceQueries.inboxFull(limits) }
            let ids = try connection.query(
                q.insertEvent, [.text(source), .blob(body), .int(receivedAtMs)], row: { $0.int64(0) })
            guard let id = ids.first else { throw .corrupt("an inbox insert answered no id") }
            return id
        }
    }

    /// `EventInbox.takeEvents` (the writer's lock makes takes of several processes disjoint).
    public func takeEvents(nowMs: Int64, limit: Int, leaseMs: Int64, token: String) throws(RecordsError)
        -> [InboxEvent]
    {
        try RecordStoreLimits.checkBatchLimit(limit)
        let rows = try write(durable: false) { (connection) throws(RecordsError) in
            try connection.query(
                q.takeEvents, [.int(nowMs), .int(nowMs + max(0, leaseMs)), .text(token), .int(Int64(limit))],
                row: Self.event(from:))
        }
        return rows.sorted { $0.id < $1.id }
    }

    /// `EventInbox.finishEvent`.
    public func finishEvent(id: Int64, token: String, outcome: InboxOutcome, nowMs: Int64) throws(RecordsError)
        -> Bool
    {
        try write(durable: false) { (connection) throws(RecordsError) -> Bool in
            switch outcome {
            case .done:
                return try connection.run(q.settleEvent, [.int(id), .text(token), .text("done"), .null, .int(nowMs)])
                    == 1
            case .rejected(let reason):
                return try connection.run(
                    q.settleEvent, [.int(id), .text(token), .text("rejected"), .text(reason), .int(nowMs)]) == 1
            case .retry(let dueAtMs, let reason):
                return try connection.run(q.retryEvent, [.int(id), .text(token), .int(dueAtMs), .text(reason)]) == 1
            }
        }
    }

    /// `EventInbox.inboxStats`.
    public func inboxStats() throws(RecordsError) -> InboxStats {
        let rows = try read { (connection) throws(RecordsError) in
            try connection.query(q.eventStats, []) { ($0.text(0), $0.int64(1), $0.optionalInt64(2)) }
        }
        return ExactlyOnceStats.inbox(rows)
    }

    /// `EventInbox.pruneEvents`.
    public func pruneEvents(finishedBeforeMs beforeMs: Int64, limit: Int) throws(RecordsError) -> Int {
        try RecordStoreLimits.checkBatchLimit(limit)
        return try write(durable: false) { (connection) throws(RecordsError) -> Int in
            try connection.run(q.pruneEvents, [.int(beforeMs), .int(Int64(limit))])
        }
    }

    /// `MultipartLedger.putMultipartUpload`, durable.
    public func putMultipartUpload(_ upload: MultipartUploadEntry) throws(RecordsError) {
        let values = try ExactlyOnceQueries.values(of: upload)
        try write { (connection) throws(RecordsError) in _ = try connection.run(q.upsertUpload, values) }
    }

    /// `MultipartLedger.multipartUpload`.
    public func multipartUpload(objectKey: String, uploadId: String) throws(RecordsError) -> MultipartUploadEntry? {
        try read { (connection) throws(RecordsError) in
            try connection.query(q.uploadByRef, [.text(objectKey), .text(uploadId)], row: Self.upload(from:)).first
        }
    }

    /// `MultipartLedger.noteCompletion`, durable.
    public func noteCompletion(
        objectKey: String, uploadId: String, parts: [MultipartUploadEntry.Part], nowMs: Int64
    ) throws(RecordsError) -> Bool {
        let text = try ExactlyOnceQueries.encodeParts(parts)
        return try write { (connection) throws(RecordsError) -> Bool in
            try connection.run(q.noteCompletion, [.text(objectKey), .text(uploadId), .text(text), .int(nowMs)]) == 1
        }
    }

    /// `MultipartLedger.multipartUploads(createdBeforeMs:limit:)`.
    public func multipartUploads(createdBeforeMs beforeMs: Int64, limit: Int) throws(RecordsError)
        -> [MultipartUploadEntry]
    {
        try RecordStoreLimits.checkBatchLimit(limit)
        return try read { (connection) throws(RecordsError) in
            try connection.query(q.staleUploads, [.int(beforeMs), .int(Int64(limit))], row: Self.upload(from:))
        }
    }

    /// `MultipartLedger.removeMultipartUploads`, in one transaction.
    public func removeMultipartUploads(_ uploads: [(objectKey: String, uploadId: String)]) throws(RecordsError) {
        guard !uploads.isEmpty else { return }
        try write(durable: false) { (connection) throws(RecordsError) in
            for upload in uploads {
                try connection.run(q.removeUpload, [.text(upload.objectKey), .text(upload.uploadId)])
            }
        }
    }

    /// A claim from a row in `claimColumns` order.
    private static func claim(from row: SQLiteStatement) throws(RecordsError) -> IntentClaim {
        IntentClaim(
            imageKey: row.text(0), intentCreatedAtMs: row.int64(1), claimant: row.text(2), token: row.text(3),
            state: try ExactlyOnceQueries.claimState(row.text(4)), leaseUntilMs: row.int64(5),
            claimedAtMs: row.int64(6), updatedAtMs: row.int64(7), recordId: row.optionalText(8),
            reason: row.optionalText(9))
    }

    /// An inbox entry from a row (id, source, body, received, attempts, state, reason).
    private static func event(from row: SQLiteStatement) throws(RecordsError) -> InboxEvent {
        let body = try row.withBlob(2) { (bytes) throws(RecordsError) in Array(bytes) }
        return InboxEvent(
            id: row.int64(0), source: row.text(1), body: body, receivedAtMs: row.int64(3),
            attempts: Int(row.int64(4)), state: try ExactlyOnceQueries.eventState(row.text(5)),
            reason: row.optionalText(6))
    }

    /// An upload from a row in `uploadColumns` order.
    private static func upload(from row: SQLiteStatement) throws(RecordsError) -> MultipartUploadEntry {
        var parts: [MultipartUploadEntry.Part]?
        if let text = row.optionalText(5) {
            guard let decoded = ExactlyOnceQueries.decodeParts(text) else {
                throw .corrupt("the parts of an upload cannot be read")
            }
            parts = decoded
        }
        return MultipartUploadEntry(
            objectKey: row.text(0), uploadId: row.text(1), imageKey: row.text(2), ownerId: row.text(3),
            createdAtMs: row.int64(4), completionParts: parts, completingAtMs: row.optionalInt64(6))
    }
}
