extension SQLiteRecordStore: LeaseStore, RateBucketStore, QuotaStore {
    /// The statements.
    private var s: SharedStateQueries { SharedStateQueries.sqlite }

    /// `LeaseStore.acquireLease` in one `BEGIN IMMEDIATE` transaction (the write lock orders processes on
    /// one file), committed durably.
    public func acquireLease(name: String, holder: String, nowMs: Int64, ttlMs: Int64) throws(RecordsError)
        -> LeaseOutcome
    {
        try write { (connection) throws(RecordsError) -> LeaseOutcome in
            let current = try connection.query(s.leaseByName, [.text(name)], row: Self.lease(from:)).first
            switch LeasePlan.step(current: current, name: name, holder: holder, nowMs: nowMs, ttlMs: ttlMs) {
            case .answer(let outcome):
                return outcome
            case .write(let lease, let tookOver):
                try connection.run(s.upsertLease, Self.values(of: lease))
                return .acquired(lease, tookOver: tookOver)
            }
        }
    }

    /// `LeaseStore.renewLease`.
    public func renewLease(_ lease: Lease, nowMs: Int64, ttlMs: Int64) throws(RecordsError) -> Lease? {
        let until = nowMs + max(1, ttlMs)
        let changed = try write { (connection) throws(RecordsError) -> Int in
            try connection.run(
                s.renewLease,
                [.text(lease.name), .text(lease.holder), .int(lease.token), .int(until), .int(nowMs)])
        }
        guard changed == 1 else { return nil }
        var renewed = lease
        renewed.expiresAtMs = until
        return renewed
    }

    /// `LeaseStore.releaseLease`.
    public func releaseLease(_ lease: Lease, nowMs: Int64) throws(RecordsError) -> Bool {
        try write { (connection) throws(RecordsError) -> Bool in
            try connection.run(
                s.releaseLease, [.text(lease.name), .text(lease.holder), .int(lease.token), .int(nowMs)]) == 1
        }
    }

    /// `LeaseStore.lease(name:)`.
    public func lease(name: String) throws(RecordsError) -> Lease? {
        try read { (connection) throws(RecordsError) in
            try connection.query(s.leaseByName, [.text(name)], row: Self.lease(from:)).first
        }
    }

    /// `LeaseStore.fenced`: the check and the writes in one `BEGIN IMMEDIATE` transaction on the writer
    /// (`synchronous=FULL` when durable), so no other process can take the lease over between them.
    public func fenced<Value: Sendable>(
        by lease: Lease, nowMs: Int64, durable: Bool, _ body: (any FencedWrites) throws(RecordsError) -> Value
    ) throws(RecordsError) -> LeaseFenced<Value> {
        try writer.withConnection { (connection) throws(RecordsError) -> LeaseFenced<Value> in
            let writes = SQLiteFencedWrites(store: self, connection: connection)
            return try transaction(connection, durable: durable) { () throws(RecordsError) -> LeaseFenced<Value> in
                let stored = try connection.query(s.leaseForFence, [.text(lease.name)], row: Self.lease(from:)).first
                guard LeasePlan.holds(stored, lease, nowMs: nowMs) else { return .lost(stored) }
                return .done(try body(writes))
            }
        }
    }

    /// `RateBucketStore.syncRateBuckets` in one transaction (without its own fsync: a lost charge only
    /// lets a few requests more through).
    public func syncRateBuckets(instanceId: String, nowMs: Int64, liveWithinMs: Int64, usage: [RateUsage])
        throws(RecordsError) -> RateSyncResult
    {
        let sorted = usage.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }
        return try write(durable: false) { (connection) throws(RecordsError) -> RateSyncResult in
            try connection.run(s.seeInstance, [.text(instanceId), .int(nowMs)])
            let live = try connection.query(s.liveInstances, [.int(nowMs - liveWithinMs)]) { $0.int64(0) }.first ?? 1
            var tokens: [String: Double] = [:]
            for item in sorted {
                let left = try connection.query(
                    SharedStateQueries.sqliteCharge,
                    [.text(item.key), .int(item.consumed), .int(item.perMinute), .int(item.burst), .int(nowMs)]
                ) { $0.double(0) }.first
                tokens[item.key] = left ?? Double(item.burst - item.consumed)
            }
            return RateSyncResult(instances: max(1, Int(live)), tokens: tokens)
        }
    }

    /// `RateBucketStore.pruneRateBuckets`.
    public func pruneRateBuckets(nowMs: Int64, forgetInstancesAfterMs: Int64, limit: Int) throws(RecordsError)
        -> Int
    {
        try RecordStoreLimits.checkBatchLimit(limit)
        return try write(durable: false) { (connection) throws(RecordsError) -> Int in
            try connection.run(s.forgetInstances, [.int(nowMs - forgetInstancesAfterMs)])
            return try connection.run(s.pruneBuckets, [.int(nowMs), .int(Int64(limit))])
        }
    }

    /// `QuotaStore.putIntents(_:reserving:)`: the reservations and the intents in one transaction on the
    /// writer, committed as `putIntents` commits.
    public func putIntents(_ intents: [UploadIntent], reserving: [QuotaRequest?]) throws(RecordsError)
        -> [QuotaOutcome]
    {
        guard intents.count == reserving.count else {
            throw .invalidArgument("\(intents.count) intents but \(reserving.count) quota requests")
        }
        guard !intents.isEmpty else { return [] }
        return try write(durable: false) { (connection) throws(RecordsError) -> [QuotaOutcome] in
            var outcomes: [QuotaOutcome] = []
            var accepted: [UploadIntent] = []
            for (intent, request) in zip(intents, reserving) {
                let outcome = try request.map { (r) throws(RecordsError) in try reserve(r, connection) } ?? .stored
                outcomes.append(outcome)
                if outcome == .stored { accepted.append(intent) }
            }
            try SQLiteIntentRows.store(accepted, connection)
            return outcomes
        }
    }

    /// Reserves `request` inside the caller's transaction (`QuotaPlan.decide`).
    private func reserve(_ request: QuotaRequest, _ connection: SQLiteConnection) throws(RecordsError)
        -> QuotaOutcome
    {
        let previous = try connection.query(s.reservationByKey, [.text(request.imageKey)]) {
            (owner: $0.text(0), day: $0.int64(1), bytes: $0.int64(2))
        }.first
        let usage =
            try connection.query(s.usageByDay, [.text(request.ownerId), .int(request.dayStartMs)]) {
                QuotaUsage(uploads: $0.int64(0), bytes: $0.int64(1))
            }.first ?? QuotaUsage(uploads: 0, bytes: 0)
        let samePrevious = previous.flatMap { $0.owner == request.ownerId ? ($0.day, $0.bytes) : nil }
        let outcome = QuotaPlan.decide(request, usage: usage, previous: samePrevious)
        guard outcome == .stored else { return outcome }
        if let previous {
            try connection.run(
                s.addUsage, [.text(previous.owner), .int(previous.day), .int(-1), .int(-previous.bytes)])
        }
        try connection.run(
            s.addUsage, [.text(request.ownerId), .int(request.dayStartMs), .int(1), .int(request.bytes)])
        try connection.run(
            s.upsertReservation,
            [.text(request.imageKey), .text(request.ownerId), .int(request.dayStartMs), .int(request.bytes)])
        return outcome
    }

    /// `QuotaStore.releaseQuotas`.
    public func releaseQuotas(imageKeys: [String]) throws(RecordsError) -> Int {
        guard !imageKeys.isEmpty else { return 0 }
        return try write { (connection) throws(RecordsError) -> Int in
            try releaseQuotasInTransaction(imageKeys, connection)
        }
    }

    /// Gives back the reservations of `imageKeys` inside the caller's transaction; how many were held.
    func releaseQuotasInTransaction(_ imageKeys: [String], _ connection: SQLiteConnection) throws(RecordsError)
        -> Int
    {
        var released = 0
        for key in imageKeys {
            guard
                let held = try connection.query(
                    s.reservationByKey, [.text(key)],
                    row: {
                        (owner: $0.text(0), day: $0.int64(1), bytes: $0.int64(2))
                    }
                ).first
            else { continue }
            try connection.run(s.addUsage, [.text(held.owner), .int(held.day), .int(-1), .int(-held.bytes)])
            try connection.run(s.deleteReservation, [.text(key)])
            released += 1
        }
        return released
    }

    /// `QuotaStore.quotaUsage`.
    public func quotaUsage(ownerId: String, dayStartMs: Int64) throws(RecordsError) -> QuotaUsage {
        try read { (connection) throws(RecordsError) in
            try connection.query(s.usageByDay, [.text(ownerId), .int(dayStartMs)]) {
                QuotaUsage(uploads: $0.int64(0), bytes: $0.int64(1))
            }.first ?? QuotaUsage(uploads: 0, bytes: 0)
        }
    }

    /// `QuotaStore.pruneQuotas`.
    public func pruneQuotas(beforeDayMs: Int64, limit: Int) throws(RecordsError) -> Int {
        try RecordStoreLimits.checkBatchLimit(limit)
        return try write(durable: false) { (connection) throws(RecordsError) -> Int in
            try connection.run(s.pruneReservations, [.int(beforeDayMs), .int(Int64(limit))])
                + connection.run(s.pruneUsage, [.int(beforeDayMs), .int(Int64(limit))])
        }
    }

    /// A lease from a row in `leaseColumns` order.
    private static func lease(from row: SQLiteStatement) -> Lease {
        Lease(
            name: row.text(0), holder: row.text(1), token: row.int64(2), expiresAtMs: row.int64(3),
            acquiredAtMs: row.int64(4))
    }

    /// A lease's values in `leaseColumns` order.
    static func values(of lease: Lease) -> [SQLValue] {
        [.text(lease.name), .text(lease.holder), .int(lease.token), .int(lease.expiresAtMs), .int(lease.acquiredAtMs)]
    }
}

/// The fenced writes on SQLite's writer connection, inside `fenced`'s transaction.
final class SQLiteFencedWrites: FencedWrites {
    /// The store.
    private let store: SQLiteRecordStore
    /// The writer, in the fenced transaction.
    private let connection: SQLiteConnection

    /// Writes on `connection` for `store`.
    init(store: SQLiteRecordStore, connection: SQLiteConnection) {
        self.store = store
        self.connection = connection
    }

    /// `RecordStore.deleteIntents` in the transaction.
    func deleteIntents(imageKeys: [String]) throws(RecordsError) {
        try store.deleteIntentsInTransaction(imageKeys, connection)
    }

    /// `RecordStore.finishObjectDeletions` in the transaction.
    func finishObjectDeletions(_ objectKeys: [String]) throws(RecordsError) {
        for key in objectKeys { try connection.run(SlotQueries.sqlite.finishDeletion, [.text(key)]) }
    }

    /// `QuotaStore.releaseQuotas` in the transaction.
    func releaseQuotas(imageKeys: [String]) throws(RecordsError) -> Int {
        try store.releaseQuotasInTransaction(imageKeys, connection)
    }

    /// `MultipartLedger.removeMultipartUploads` in the transaction.
    func removeMultipartUploads(_ uploads: [(objectKey: String, uploadId: String)]) throws(RecordsError) {
        for upload in uploads {
            try connection.run(
                ExactlyOnceQueries.sqlite.removeUpload, [.text(upload.objectKey), .text(upload.uploadId)])
        }
    }

    /// `WebhookOutbox.settleWebhookDelivery` in the transaction.
    func settleWebhookDelivery(seq: Int64, attempt: WebhookAttempt, nowMs: Int64) throws(RecordsError) -> Bool {
        try SQLiteRecordStore.settle(seq: seq, attempt: attempt, nowMs: nowMs, connection)
    }

    /// `ScanQueue.settleScan` in the transaction.
    func settleScan(id: String, _ settlement: ScanSettlement, events: (ImageRecord) -> [OutboxEvent])
        throws(RecordsError) -> ImageRecord?
    {
        try store.settleScanInTransaction(id: id, settlement, events: events, connection)
    }
}
