import Records

extension InMemoryRecordStore: LeaseStore, RateBucketStore, QuotaStore {
    /// `LeaseStore.acquireLease` under the store's one lock.
    public func acquireLease(name: String, holder: String, nowMs: Int64, ttlMs: Int64) throws(RecordsError)
        -> LeaseOutcome
    {
        state.withLock { state in
            switch LeasePlan.step(current: state.leases[name], name: name, holder: holder, nowMs: nowMs, ttlMs: ttlMs)
            {
            case .answer(let outcome):
                return outcome
            case .write(let lease, let tookOver):
                state.leases[name] = lease
                return .acquired(lease, tookOver: tookOver)
            }
        }
    }

    /// `LeaseStore.renewLease`.
    public func renewLease(_ lease: Lease, nowMs: Int64, ttlMs: Int64) throws(RecordsError) -> Lease? {
        state.withLock { state in
            guard LeasePlan.holds(state.leases[lease.name], lease, nowMs: nowMs) else { return nil }
            state.leases[lease.name]?.expiresAtMs = nowMs + max(1, ttlMs)
            return state.leases[lease.name]
        }
    }

    /// `LeaseStore.releaseLease`.
    public func releaseLease(_ lease: Lease, nowMs: Int64) throws(RecordsError) -> Bool {
        state.withLock { state in
            guard LeasePlan.holds(state.leases[lease.name], lease, nowMs: nowMs) else { return false }
            state.leases[lease.name]?.expiresAtMs = nowMs
            return true
        }
    }

    /// `LeaseStore.lease(name:)`.
    public func lease(name: String) throws(RecordsError) -> Lease? {
        state.withLock { $0.leases[name] }
    }

    /// `LeaseStore.fenced`: the check, `body` and its writes under the store's one lock (so `body` must
    /// use only the writes it is given, never the store itself).
    public func fenced<Value: Sendable>(
        by lease: Lease, nowMs: Int64, durable: Bool, _ body: (any FencedWrites) throws(RecordsError) -> Value
    ) throws(RecordsError) -> LeaseFenced<Value> {
        let outcome = try state.withLock { (state: inout State) throws(RecordsError) -> LeaseFenced<Value> in
            let stored = state.leases[lease.name]
            guard LeasePlan.holds(stored, lease, nowMs: nowMs) else { return .lost(stored) }
            let writes = InMemoryFencedWrites(
                reserved: Set(state.reservations.keys),
                pending: Set(state.outbox.values.filter { $0.state == .pending }.map(\.seq)),
                scans: state.scans, records: state.records)
            let value = try body(writes)
            for record in writes.scanned { state.records[record.id] = record }
            state.scans = writes.scans
            Self.appendOutbox(writes.scanEvents, &state)
            for key in writes.releasedKeys {
                guard let held = state.reservations.removeValue(forKey: key) else { continue }
                Self.addUsage(&state, held.ownerId, held.dayStartMs, -1, -held.bytes)
            }
            for key in writes.intentKeys { state.intents[key] = nil }
            for key in writes.objectKeys { state.deletions[key] = nil }
            for upload in writes.uploads {
                state.uploads[UploadKey(objectKey: upload.objectKey, uploadId: upload.uploadId)] = nil
            }
            for settlement in writes.settlements {
                _ = Self.settle(seq: settlement.seq, attempt: settlement.attempt, nowMs: settlement.nowMs, &state)
            }
            return .done(value)
        }
        commits.add(1, ordering: .relaxed)
        return outcome
    }

    /// `RateBucketStore.syncRateBuckets` under the store's one lock.
    public func syncRateBuckets(instanceId: String, nowMs: Int64, liveWithinMs: Int64, usage: [RateUsage])
        throws(RecordsError) -> RateSyncResult
    {
        state.withLock { state in
            state.instances[instanceId] = max(state.instances[instanceId] ?? .min, nowMs)
            let live = state.instances.values.filter { $0 > nowMs - liveWithinMs }.count
            var tokens: [String: Double] = [:]
            for item in usage {
                let burst = Double(item.burst)
                var level = burst
                if let known = state.buckets[item.key] {
                    let refill = Double(max(0, nowMs - known.updatedAtMs)) * Double(item.perMinute) / 60_000
                    level = min(burst, known.tokens + refill)
                }
                level = max(-burst, level - Double(item.consumed))
                let updated = max(state.buckets[item.key]?.updatedAtMs ?? nowMs, nowMs)
                state.buckets[item.key] = (level, updated, item.perMinute, item.burst)
                tokens[item.key] = level
            }
            return RateSyncResult(instances: max(1, live), tokens: tokens)
        }
    }

    /// `RateBucketStore.pruneRateBuckets`.
    public func pruneRateBuckets(nowMs: Int64, forgetInstancesAfterMs: Int64, limit: Int) throws(RecordsError)
        -> Int
    {
        try RecordStoreLimits.checkBatchLimit(limit)
        return state.withLock { state in
            state.instances = state.instances.filter { $0.value >= nowMs - forgetInstancesAfterMs }
            let full = state.buckets.filter { _, b in
                b.tokens + Double(nowMs - b.updatedAtMs) * Double(b.perMinute) / 60_000 >= Double(b.burst)
            }.keys.prefix(limit)
            for key in full { state.buckets[key] = nil }
            return full.count
        }
    }

    /// `QuotaStore.putIntents(_:reserving:)` under the store's one lock.
    public func putIntents(_ intents: [UploadIntent], reserving: [QuotaRequest?]) throws(RecordsError)
        -> [QuotaOutcome]
    {
        guard intents.count == reserving.count else {
            throw .invalidArgument("\(intents.count) intents but \(reserving.count) quota requests")
        }
        for intent in intents { _ = try AllowedContentTypes.encode(intent.allowedContentTypes) }
        let outcomes = state.withLock { state -> [QuotaOutcome] in
            var outcomes: [QuotaOutcome] = []
            for (intent, request) in zip(intents, reserving) {
                var outcome = QuotaOutcome.stored
                if let request {
                    let day = QuotaDay(ownerId: request.ownerId, dayStartMs: request.dayStartMs)
                    let previous = state.reservations[request.imageKey]
                    let same = previous.flatMap { $0.ownerId == request.ownerId ? ($0.dayStartMs, $0.bytes) : nil }
                    outcome = QuotaPlan.decide(
                        request, usage: state.quotaUsage[day] ?? QuotaUsage(uploads: 0, bytes: 0), previous: same)
                    if outcome == .stored {
                        if let previous {
                            Self.addUsage(&state, previous.ownerId, previous.dayStartMs, -1, -previous.bytes)
                        }
                        Self.addUsage(&state, request.ownerId, request.dayStartMs, 1, request.bytes)
                        state.reservations[request.imageKey] = (request.ownerId, request.dayStartMs, request.bytes)
                    }
                }
                if outcome == .stored, state.idByImageKey[intent.imageKey] == nil {
                    state.intents[intent.imageKey] = intent
                }
                outcomes.append(outcome)
            }
            return outcomes
        }
        commits.add(1, ordering: .relaxed)
        return outcomes
    }

    /// `QuotaStore.releaseQuotas`.
    public func releaseQuotas(imageKeys: [String]) throws(RecordsError) -> Int {
        state.withLock { state in
            var released = 0
            for key in imageKeys {
                guard let held = state.reservations.removeValue(forKey: key) else { continue }
                Self.addUsage(&state, held.ownerId, held.dayStartMs, -1, -held.bytes)
                released += 1
            }
            return released
        }
    }

    /// `QuotaStore.quotaUsage`.
    public func quotaUsage(ownerId: String, dayStartMs: Int64) throws(RecordsError) -> QuotaUsage {
        state.withLock {
            $0.quotaUsage[QuotaDay(ownerId: ownerId, dayStartMs: dayStartMs)] ?? QuotaUsage(uploads: 0, bytes: 0)
        }
    }

    /// `QuotaStore.pruneQuotas`.
    public func pruneQuotas(beforeDayMs: Int64, limit: Int) throws(RecordsError) -> Int {
        try RecordStoreLimits.checkBatchLimit(limit)
        return state.withLock { state in
            let keys = state.reservations.filter { $0.value.dayStartMs < beforeDayMs }.keys.prefix(limit)
            for key in keys { state.reservations[key] = nil }
            let days = state.quotaUsage.keys.filter { $0.dayStartMs < beforeDayMs }.prefix(limit)
            for day in days { state.quotaUsage[day] = nil }
            return keys.count + days.count
        }
    }

    /// Adds to an owner's day (never below zero).
    private static func addUsage(_ state: inout State, _ owner: String, _ day: Int64, _ uploads: Int64, _ bytes: Int64)
    {
        let key = QuotaDay(ownerId: owner, dayStartMs: day)
        let usage = state.quotaUsage[key] ?? QuotaUsage(uploads: 0, bytes: 0)
        state.quotaUsage[key] = QuotaUsage(uploads: max(0, usage.uploads + uploads), bytes: max(0, usage.bytes + bytes))
    }
}

/// The fenced writes of the in-memory store: collected while `body` runs, applied under the same lock.
final class InMemoryFencedWrites: FencedWrites {
    /// Intents to delete.
    private(set) var intentKeys: [String] = []
    /// Pending object deletions to finish.
    private(set) var objectKeys: [String] = []
    /// Multipart uploads to remove.
    private(set) var uploads: [(objectKey: String, uploadId: String)] = []
    /// Webhook attempts to settle.
    private(set) var settlements: [(seq: Int64, attempt: WebhookAttempt, nowMs: Int64)] = []
    /// The pending deliveries when the transaction began, less those settled in it.
    private var pendingSeqs: Set<Int64>
    /// Reservations to give back.
    private(set) var releasedKeys: [String] = []
    /// The reservations held when the transaction began, less those released in it.
    private var reserved: Set<String>

    /// The scan bookkeeping when the transaction began, with the settlements made in it.
    private(set) var scans: [String: InMemoryRecordStore.ScanBook]
    /// The records when the transaction began (those settled in it as settled).
    private var records: [String: ImageRecord]
    /// Records settled by scans in the transaction.
    private(set) var scanned: [ImageRecord] = []
    /// The outbox events of those settlements.
    private(set) var scanEvents: [OutboxEvent] = []

    /// Writes over a store holding the reservations `reserved`, the pending deliveries `pending` and
    /// `records` with their scan bookkeeping `scans`.
    init(
        reserved: Set<String>, pending: Set<Int64>, scans: [String: InMemoryRecordStore.ScanBook],
        records: [String: ImageRecord]
    ) {
        self.reserved = reserved
        pendingSeqs = pending
        self.scans = scans
        self.records = records
    }

    /// `ScanQueue.settleScan`, collected.
    func settleScan(id: String, _ settlement: ScanSettlement, events: (ImageRecord) -> [OutboxEvent])
        throws(RecordsError) -> ImageRecord?
    {
        guard let record = records[id],
            let settled = InMemoryRecordStore.settle(record, settlement, book: &scans[id, default: .init()])
        else { return nil }
        records[id] = settled
        scanned.append(settled)
        scanEvents += events(settled)
        return settled
    }

    /// `WebhookOutbox.settleWebhookDelivery`, collected: whether `seq` was pending.
    func settleWebhookDelivery(seq: Int64, attempt: WebhookAttempt, nowMs: Int64) throws(RecordsError) -> Bool {
        guard pendingSeqs.contains(seq) else { return false }
        if case .retry = attempt {} else { pendingSeqs.remove(seq) }
        settlements.append((seq, attempt, nowMs))
        return true
    }

    /// `QuotaStore.releaseQuotas`, collected: how many of `imageKeys` were held.
    func releaseQuotas(imageKeys: [String]) throws(RecordsError) -> Int {
        var released = 0
        for key in imageKeys where reserved.remove(key) != nil {
            releasedKeys.append(key)
            released += 1
        }
        return released
    }

    /// `RecordStore.deleteIntents`, collected.
    func deleteIntents(imageKeys: [String]) throws(RecordsError) { intentKeys += imageKeys }

    /// `RecordStore.finishObjectDeletions`, collected.
    func finishObjectDeletions(_ objectKeys: [String]) throws(RecordsError) { self.objectKeys += objectKeys }

    /// `MultipartLedger.removeMultipartUploads`, collected.
    func removeMultipartUploads(_ uploads: [(objectKey: String, uploadId: String)]) throws(RecordsError) {
        self.uploads += uploads
    }
}
