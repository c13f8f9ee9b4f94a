import Records

extension InMemoryRecordStore: ClaimStore, EventInbox, MultipartLedger {
    /// `ClaimStore.claimIntent` under the store's one lock.
    public func claimIntent(_ request: ClaimRequest) throws(RecordsError) -> ClaimOutcome {
        let outcome = state.withLock { state -> ClaimOutcome in
            let record = state.idByImageKey[request.imageKey].flatMap { state.records[$0] }
            switch ClaimPlan.step(for: request, record: record, current: state.claims[request.imageKey]) {
            case .answer(let outcome):
                return outcome
            case .take(let claim, let previous):
                state.claims[request.imageKey] = claim
                return .won(claim, tookOverFrom: previous)
            }
        }
        commits.add(1, ordering: .relaxed)
        return outcome
    }

    /// `ClaimStore.renewClaim`.
    public func renewClaim(imageKey: String, token: String, nowMs: Int64, leaseMs: Int64) throws(RecordsError)
        -> Bool
    {
        state.withLock { state in
            guard ClaimPlan.holds(state.claims[imageKey], token: token) else { return false }
            state.claims[imageKey]?.leaseUntilMs = nowMs + max(0, leaseMs)
            state.claims[imageKey]?.updatedAtMs = nowMs
            return true
        }
    }

    /// `ClaimStore.releaseClaim`.
    public func releaseClaim(imageKey: String, token: String) throws(RecordsError) -> Bool {
        state.withLock { state in
            guard ClaimPlan.holds(state.claims[imageKey], token: token) else { return false }
            state.claims[imageKey] = nil
            return true
        }
    }

    /// `ClaimStore.recordClaimed`: all or nothing (a duplicate id under another key fails the call).
    public func recordClaimed(_ claimed: [ClaimedRecord], nowMs: Int64) throws(RecordsError) -> [ClaimFinish] {
        let finishes = try state.withLock { (state: inout State) throws(RecordsError) -> [ClaimFinish] in
            var next = state
            var finishes: [ClaimFinish] = []
            for item in claimed {
                let (record, token) = (item.record, item.token)
                guard ClaimPlan.holds(next.claims[record.imageKey], token: token) else {
                    finishes.append(.fenced(next.claims[record.imageKey]))
                    continue
                }
                let finish: ClaimFinish
                if let id = next.idByImageKey[record.imageKey], let stored = next.records[id] {
                    finish = stored.id == record.id ? .recorded(stored) : .existing(stored)
                } else {
                    guard next.records[record.id] == nil else {
                        throw .constraint("a record with id \(record.id) already exists")
                    }
                    next.records[record.id] = record
                    next.idByImageKey[record.imageKey] = record.id
                    finish = .recorded(record)
                }
                if case .recorded(let r) = finish { next.claims[record.imageKey]?.recordId = r.id }
                if case .existing(let r) = finish { next.claims[record.imageKey]?.recordId = r.id }
                next.claims[record.imageKey]?.state = .recorded
                next.claims[record.imageKey]?.reason = nil
                next.claims[record.imageKey]?.updatedAtMs = nowMs
                if case .recorded = finish { Self.appendOutbox(item.events, &next) }
                finishes.append(finish)
            }
            state = next
            return finishes
        }
        commits.add(1, ordering: .relaxed)
        return finishes
    }

    /// `ClaimStore.expireClaim`.
    public func expireClaim(imageKey: String, token: String, reason: String, nowMs: Int64, events: [OutboxEvent])
        throws(RecordsError) -> Bool
    {
        state.withLock { state in
            guard ClaimPlan.holds(state.claims[imageKey], token: token) else { return false }
            state.claims[imageKey]?.state = .expired
            state.claims[imageKey]?.recordId = nil
            state.claims[imageKey]?.reason = reason
            state.claims[imageKey]?.updatedAtMs = nowMs
            Self.appendOutbox(events, &state)
            return true
        }
    }

    /// `ClaimStore.claim`.
    public func claim(imageKey: String) throws(RecordsError) -> IntentClaim? {
        state.withLock { $0.claims[imageKey] }
    }

    /// `ClaimStore.pruneClaims`.
    public func pruneClaims(settledBeforeMs beforeMs: Int64, limit: Int) throws(RecordsError) -> Int {
        try RecordStoreLimits.checkBatchLimit(limit)
        return state.withLock { state in
            let due = state.claims.values.filter { $0.state != .claimed && $0.updatedAtMs < beforeMs }
                .sorted { ($0.updatedAtMs, $0.imageKey) < ($1.updatedAtMs, $1.imageKey) }.prefix(limit)
            for claim in due { state.claims[claim.imageKey] = nil }
            return due.count
        }
    }

    /// `EventInbox.enqueueEvent`.
    public func enqueueEvent(source: String, body: [UInt8], receivedAtMs: Int64, limits: InboxLimits)
        throws(RecordsError) -> Int64
    {
        try ExactlyOnceQueries.checkEvent(body: body, limits: limits)
        let id = try state.withLock { (state: inout State) throws(RecordsError) -> Int64 in
            let pending = state.events.values.filter { $0.event.state == .pending }.count
            guard pending < limits.maxPending else { throw ExactlyOnceQueries.inboxFull(limits) }
            state.lastEventId += 1
            let event = InboxEvent(
                id: state.lastEventId, source: source, body: body, receivedAtMs: receivedAtMs, attempts: 0,
                state: .pending)
            state.events[event.id] = (event, receivedAtMs, nil, nil)
            return event.id
        }
        commits.add(1, ordering: .relaxed)
        return id
    }

    /// `EventInbox.takeEvents`.
    public func takeEvents(nowMs: Int64, limit: Int, leaseMs: Int64, token: String) throws(RecordsError)
        -> [InboxEvent]
    {
        try RecordStoreLimits.checkBatchLimit(limit)
        return state.withLock { state in
            let due = state.events.values.filter { $0.event.state == .pending && $0.dueAtMs <= nowMs }
                .sorted { ($0.dueAtMs, $0.event.id) < ($1.dueAtMs, $1.event.id) }.prefix(limit)
            var taken: [InboxEvent] = []
            for entry in due {
                var event = entry.event
                event.attempts += 1
                state.events[event.id] = (event, nowMs + max(0, leaseMs), token, nil)
                taken.append(event)
            }
            return taken.sorted { $0.id < $1.id }
        }
    }

    /// `EventInbox.finishEvent`.
    public func finishEvent(id: Int64, token: String, outcome: InboxOutcome, nowMs: Int64) throws(RecordsError)
        -> Bool
    {
        state.withLock { state in
            guard var entry = state.events[id], entry.event.state == .pending, entry.token == token else {
                return false
            }
            switch outcome {
            case .done:
                entry.event.state = .done
                entry.event.reason = nil
                entry.finishedAtMs = nowMs
            case .rejected(let reason):
                entry.event.state = .rejected
                entry.event.reason = reason
                entry.finishedAtMs = nowMs
            case .retry(let dueAtMs, let reason):
                entry.event.reason = reason
                entry.dueAtMs = dueAtMs
            }
            entry.token = nil
            state.events[id] = entry
            return true
        }
    }

    /// `EventInbox.inboxStats`.
    public func inboxStats() throws(RecordsError) -> InboxStats {
        state.withLock { state in
            let events = state.events.values.map(\.event)
            let pending = events.filter { $0.state == .pending }
            return InboxStats(
                pending: pending.count, oldestPendingReceivedAtMs: pending.map(\.receivedAtMs).min(),
                done: events.filter { $0.state == .done }.count,
                rejected: events.filter { $0.state == .rejected }.count)
        }
    }

    /// `EventInbox.pruneEvents`.
    public func pruneEvents(finishedBeforeMs beforeMs: Int64, limit: Int) throws(RecordsError) -> Int {
        try RecordStoreLimits.checkBatchLimit(limit)
        return state.withLock { state in
            let due = state.events.values.filter { ($0.finishedAtMs ?? Int64.max) < beforeMs }.map(\.event.id)
                .sorted().prefix(limit)
            for id in due { state.events[id] = nil }
            return due.count
        }
    }

    /// `MultipartLedger.putMultipartUpload`.
    public func putMultipartUpload(_ upload: MultipartUploadEntry) throws(RecordsError) {
        if let parts = upload.completionParts { _ = try ExactlyOnceQueries.encodeParts(parts) }
        state.withLock { $0.uploads[UploadKey(objectKey: upload.objectKey, uploadId: upload.uploadId)] = upload }
        commits.add(1, ordering: .relaxed)
    }

    /// `MultipartLedger.multipartUpload`.
    public func multipartUpload(objectKey: String, uploadId: String) throws(RecordsError) -> MultipartUploadEntry? {
        state.withLock { $0.uploads[UploadKey(objectKey: objectKey, uploadId: uploadId)] }
    }

    /// `MultipartLedger.noteCompletion`.
    public func noteCompletion(
        objectKey: String, uploadId: String, parts: [MultipartUploadEntry.Part], nowMs: Int64
    ) throws(RecordsError) -> Bool {
        _ = try ExactlyOnceQueries.encodeParts(parts)
        return state.withLock { state in
            let key = UploadKey(objectKey: objectKey, uploadId: uploadId)
            guard state.uploads[key] != nil else { return false }
            state.uploads[key]?.completionParts = parts
            state.uploads[key]?.completingAtMs = nowMs
            return true
        }
    }

    /// `MultipartLedger.multipartUploads(createdBeforeMs:limit:)`.
    public func multipartUploads(createdBeforeMs beforeMs: Int64, limit: Int) throws(RecordsError)
        -> [MultipartUploadEntry]
    {
        try RecordStoreLimits.checkBatchLimit(limit)
        let all = state.withLock { Array($0.uploads.values) }
        return Array(
            all.filter { $0.createdAtMs < beforeMs }.sorted {
                ($0.createdAtMs, $0.objectKey, $0.uploadId) < ($1.createdAtMs, $1.objectKey, $1.uploadId)
            }.prefix(limit))
    }

    /// `MultipartLedger.removeMultipartUploads`.
    public func removeMultipartUploads(_ uploads: [(objectKey: String, uploadId: String)]) throws(RecordsError) {
        state.withLock { state in
            for upload in uploads {
                state.uploads[UploadKey(objectKey: upload.objectKey, uploadId: upload.uploadId)] = nil
            }
        }
        commits.add(1, ordering: .relaxed)
    }
}
