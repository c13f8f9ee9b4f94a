import Records

extension InMemoryRecordStore: RecordDigests {
    /// `RecordDigests.listRecords(ownerId:sha256:…)`.
    public func listRecords(ownerId: String, sha256: String, type: String?, limit: Int, after: RecordCursor?)
        throws(RecordsError) -> (records: [ImageRecord], next: RecordCursor?)
    {
        try RecordStoreLimits.checkListLimit(limit)
        let all = state.withLock { state in
            state.records.values.filter {
                $0.ownerId == ownerId && $0.sha256 == sha256 && (type == nil || $0.type == type)
            }
        }
        let sorted = all.sorted { ($0.createdAtMs, $0.id) > ($1.createdAtMs, $1.id) }
        let tail = sorted.drop { record in
            guard let after else { return false }
            return (record.createdAtMs, record.id) >= (after.createdAtMs, after.id)
        }
        let page = Array(tail.prefix(limit))
        let next = tail.count > limit ? page.last.map(RecordCursor.init(after:)) : nil
        return (page, next)
    }

    /// `RecordDigests.settleDeduplicated`.
    public func settleDeduplicated(imageKey: String, token: String, recordId: String, nowMs: Int64)
        throws(RecordsError) -> Bool
    {
        let settled = state.withLock { state -> Bool in
            guard ClaimPlan.holds(state.claims[imageKey], token: token) else { return false }
            state.claims[imageKey]?.state = .recorded
            state.claims[imageKey]?.recordId = recordId
            state.claims[imageKey]?.reason = "deduplicated"
            state.claims[imageKey]?.updatedAtMs = nowMs
            return true
        }
        if settled { commits.add(1, ordering: .relaxed) }
        return settled
    }
}
