import Crypto

extension PostgresRecordStore: LeaseStore, RateBucketStore, QuotaStore {
    /// The statements.
    private var s: SharedStateQueries { SharedStateQueries.postgres }

    /// `LeaseStore.acquireLease` in one transaction, under a transaction-scoped advisory lock of the name
    /// (so two first acquisitions decide one after the other; nothing outlives the transaction, which a
    /// transaction-mode pooler needs).
    public func acquireLease(name: String, holder: String, nowMs: Int64, ttlMs: Int64) throws(RecordsError)
        -> LeaseOutcome
    {
        let outcome = try run { (connection) throws(RecordsError) -> LeaseOutcome in
            try connection.transaction { () throws(RecordsError) -> LeaseOutcome in
                _ = try connection.execute("SELECT pg_advisory_xact_lock($1)", [.int(Self.leaseLockKey(name))])
                let current = try leaseRow(name, connection, query: s.leaseByName)
                switch LeasePlan.step(current: current, name: name, holder: holder, nowMs: nowMs, ttlMs: ttlMs) {
                case .answer(let outcome):
                    return outcome
                case .write(let lease, let tookOver):
                    _ = try connection.executePrepared(s.upsertLease, SQLiteRecordStore.values(of: lease))
                    return .acquired(lease, tookOver: tookOver)
                }
            }
        }
        commits.add(1, ordering: .relaxed)
        return outcome
    }

    /// `LeaseStore.renewLease` (one conditional update).
    public func renewLease(_ lease: Lease, nowMs: Int64, ttlMs: Int64) throws(RecordsError) -> Lease? {
        let until = nowMs + max(1, ttlMs)
        let changed = try run { (connection) throws(RecordsError) -> Int in
            try connection.executePrepared(
                s.renewLease, [.text(lease.name), .text(lease.holder), .int(lease.token), .int(until), .int(nowMs)]
            ).affectedRows
        }
        commits.add(1, ordering: .relaxed)
        guard changed == 1 else { return nil }
        var renewed = lease
        renewed.expiresAtMs = until
        return renewed
    }

    /// `LeaseStore.releaseLease` (one conditional update).
    public func releaseLease(_ lease: Lease, nowMs: Int64) throws(RecordsError) -> Bool {
        let changed = try run { (connection) throws(RecordsError) -> Int in
            try connection.executePrepared(
                s.releaseLease, [.text(lease.name), .text(lease.holder), .int(lease.token), .int(nowMs)]
            ).affectedRows
        }
        commits.add(1, ordering: .relaxed)
        return changed == 1
    }

    /// `LeaseStore.lease(name:)`.
    public func lease(name: String) throws(RecordsError) -> Lease? {
        try run { (connection) throws(RecordsError) in try leaseRow(name, connection, query: s.leaseByName) }
    }

    /// `LeaseStore.fenced`: the lease row read `FOR SHARE` first in the transaction, which keeps a
    /// takeover (an UPDATE of the row) waiting until the fenced writes have committed or rolled back; not
    /// durable: `SET LOCAL synchronous_commit = off` first (the transaction's commit only).
    public func fenced<Value: Sendable>(
        by lease: Lease, nowMs: Int64, durable: Bool, _ body: (any FencedWrites) throws(RecordsError) -> Value
    ) throws(RecordsError) -> LeaseFenced<Value> {
        let outcome = try run { (connection) throws(RecordsError) -> LeaseFenced<Value> in
            try connection.transaction { () throws(RecordsError) -> LeaseFenced<Value> in
                if !durable { try connection.execute("SET LOCAL synchronous_commit = off") }
                let stored = try leaseRow(lease.name, connection, query: s.leaseForFence)
                guard LeasePlan.holds(stored, lease, nowMs: nowMs) else { return .lost(stored) }
                return .done(try body(PostgresFencedWrites(connection: connection)))
            }
        }
        commits.add(1, ordering: .relaxed)
        return outcome
    }

    /// `RateBucketStore.syncRateBuckets`: one transaction of three statements, every bucket charged by one
    /// statement over arrays, in key order.
    public func syncRateBuckets(instanceId: String, nowMs: Int64, liveWithinMs: Int64, usage: [RateUsage])
        throws(RecordsError) -> RateSyncResult
    {
        let sorted = usage.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }
        var keys = PostgresArray(capacity: sorted.count * 24)
        var consumed = PostgresArray(capacity: sorted.count * 4)
        var perMinute = PostgresArray(capacity: sorted.count * 4)
        var burst = PostgresArray(capacity: sorted.count * 4)
        for item in sorted {
            try keys.append(item.key)
            consumed.append(item.consumed)
            perMinute.append(item.perMinute)
            burst.append(item.burst)
        }
        let result = try run { (connection) throws(RecordsError) -> RateSyncResult in
            try connection.transaction { () throws(RecordsError) -> RateSyncResult in
                _ = try connection.executePrepared(s.seeInstance, [.text(instanceId), .int(nowMs)])
                let live = try connection.executePrepared(s.liveInstances, [.int(nowMs - liveWithinMs)]).int64(0, 0)
                var tokens: [String: Double] = [:]
                if !sorted.isEmpty {
                    let rows = try connection.executePrepared(
                        SharedStateQueries.postgresCharge,
                        [
                            .text(keys.literal), .text(consumed.literal), .text(perMinute.literal),
                            .text(burst.literal), .int(nowMs),
                        ])
                    for row in 0..<rows.rowCount { tokens[rows.text(row, 0)] = try rows.double(row, 1) }
                }
                return RateSyncResult(instances: max(1, Int(live)), tokens: tokens)
            }
        }
        commits.add(1, ordering: .relaxed)
        return result
    }

    /// `RateBucketStore.pruneRateBuckets`.
    public func pruneRateBuckets(nowMs: Int64, forgetInstancesAfterMs: Int64, limit: Int) throws(RecordsError)
        -> Int
    {
        try RecordStoreLimits.checkBatchLimit(limit)
        let pruned = try run { (connection) throws(RecordsError) -> Int in
            try connection.transaction { () throws(RecordsError) -> Int in
                _ = try connection.executePrepared(s.forgetInstances, [.int(nowMs - forgetInstancesAfterMs)])
                return try connection.executePrepared(s.pruneBuckets, [.int(nowMs), .int(Int64(limit))]).affectedRows
            }
        }
        commits.add(1, ordering: .relaxed)
        return pruned
    }

    /// `QuotaStore.putIntents(_:reserving:)`: the reservations (each owner's day row locked, owners in byte
    /// order so that instances never wait on each other in a circle) and the intents' one upsert in one
    /// transaction.
    public func putIntents(_ intents: [UploadIntent], reserving: [QuotaRequest?]) throws(RecordsError)
        -> [QuotaOutcome]
    {
        guard intents.count == reserving.count else {
            throw .invalidArgument("\(intents.count) intents but \(reserving.count) quota requests")
        }
        guard !intents.isEmpty else { return [] }
        let order = reserving.indices.compactMap { index in reserving[index].map { (index, Array($0.ownerId.utf8)) } }
            .sorted { $0.1 == $1.1 ? $0.0 < $1.0 : $0.1.lexicographicallyPrecedes($1.1) }.map(\.0)
        let outcomes = try run { (connection) throws(RecordsError) -> [QuotaOutcome] in
            try connection.transaction { () throws(RecordsError) -> [QuotaOutcome] in
                var outcomes = [QuotaOutcome](repeating: .stored, count: intents.count)
                for index in order {
                    guard let request = reserving[index] else { continue }
                    outcomes[index] = try reserve(request, connection)
                }
                let accepted = zip(intents, outcomes).filter { $0.1 == .stored }.map(\.0)
                if let values = try Self.upsertValues(accepted) {
                    _ = try connection.executePrepared(PostgresQueries.upsertIntents, values)
                }
                return outcomes
            }
        }
        commits.add(1, ordering: .relaxed)
        return outcomes
    }

    /// Reserves `request` inside the caller's transaction: the owner's day row is made if missing and
    /// locked (`FOR UPDATE`), so instances reserving for one owner at once decide one after the other.
    private func reserve(_ request: QuotaRequest, _ connection: PostgresConnection) throws(RecordsError)
        -> QuotaOutcome
    {
        let owner = SQLValue.text(request.ownerId)
        let day = SQLValue.int(request.dayStartMs)
        _ = try connection.executePrepared(s.addUsage, [owner, day, .int(0), .int(0)])
        let row = try connection.executePrepared(s.usageByDay + " FOR UPDATE", [owner, day])
        let usage = QuotaUsage(uploads: try row.int64(0, 0), bytes: try row.int64(0, 1))
        let held = try connection.executePrepared(s.reservationByKey, [.text(request.imageKey)])
        var previous: (owner: String, day: Int64, bytes: Int64)?
        if held.rowCount > 0 {
            previous = (held.text(0, 0), try held.int64(0, 1), try held.int64(0, 2))
        }
        let samePrevious = previous.flatMap { $0.owner == request.ownerId ? ($0.day, $0.bytes) : nil }
        let outcome = QuotaPlan.decide(request, usage: usage, previous: samePrevious)
        guard outcome == .stored else { return outcome }
        if let previous {
            _ = try connection.executePrepared(
                s.addUsage, [.text(previous.owner), .int(previous.day), .int(-1), .int(-previous.bytes)])
        }
        _ = try connection.executePrepared(s.addUsage, [owner, day, .int(1), .int(request.bytes)])
        _ = try connection.executePrepared(
            s.upsertReservation, [.text(request.imageKey), owner, day, .int(request.bytes)])
        return outcome
    }

    /// `QuotaStore.releaseQuotas`, in one transaction.
    public func releaseQuotas(imageKeys: [String]) throws(RecordsError) -> Int {
        guard !imageKeys.isEmpty else { return 0 }
        let released = try run { (connection) throws(RecordsError) -> Int in
            try connection.transaction { () throws(RecordsError) -> Int in
                try Self.releaseQuotasInTransaction(imageKeys, connection)
            }
        }
        commits.add(1, ordering: .relaxed)
        return released
    }

    /// Gives back the reservations of `imageKeys` inside the caller's transaction (each row locked
    /// `FOR UPDATE`); how many were held.
    static func releaseQuotasInTransaction(_ imageKeys: [String], _ connection: PostgresConnection)
        throws(RecordsError) -> Int
    {
        let s = SharedStateQueries.postgres
        var released = 0
        for key in imageKeys {
            let held = try connection.executePrepared(s.reservationByKey + " FOR UPDATE", [.text(key)])
            guard held.rowCount > 0 else { continue }
            _ = try connection.executePrepared(
                s.addUsage,
                [
                    .text(held.text(0, 0)), .int(try held.int64(0, 1)), .int(-1),
                    .int(-(try held.int64(0, 2))),
                ])
            _ = try connection.executePrepared(s.deleteReservation, [.text(key)])
            released += 1
        }
        return released
    }

    /// `QuotaStore.quotaUsage`.
    public func quotaUsage(ownerId: String, dayStartMs: Int64) throws(RecordsError) -> QuotaUsage {
        try run { (connection) throws(RecordsError) in
            let row = try connection.executePrepared(s.usageByDay, [.text(ownerId), .int(dayStartMs)])
            guard row.rowCount > 0 else { return QuotaUsage(uploads: 0, bytes: 0) }
            return QuotaUsage(uploads: try row.int64(0, 0), bytes: try row.int64(0, 1))
        }
    }

    /// `QuotaStore.pruneQuotas`.
    public func pruneQuotas(beforeDayMs: Int64, limit: Int) throws(RecordsError) -> Int {
        try RecordStoreLimits.checkBatchLimit(limit)
        let pruned = try run { (connection) throws(RecordsError) -> Int in
            try connection.transaction { () throws(RecordsError) -> Int in
                try connection.executePrepared(s.pruneReservations, [.int(beforeDayMs), .int(Int64(limit))])
                    .affectedRows
                    + connection.executePrepared(s.pruneUsage, [.int(beforeDayMs), .int(Int64(limit))]).affectedRows
            }
        }
        commits.add(1, ordering: .relaxed)
        return pruned
    }

    /// The lease row of `name` read by `query` on `connection`.
    private func leaseRow(_ name: String, _ connection: PostgresConnection, query: String) throws(RecordsError)
        -> Lease?
    {
        let rows = try connection.executePrepared(query, [.text(name)])
        guard rows.rowCount > 0 else { return nil }
        return Lease(
            name: rows.text(0, 0), holder: rows.text(0, 1), token: try rows.int64(0, 2),
            expiresAtMs: try rows.int64(0, 3), acquiredAtMs: try rows.int64(0, 4))
    }

    /// The advisory lock of one lease's first acquisition: the first 8 bytes of the SHA-256 of its name.
    static func leaseLockKey(_ name: String) -> Int64 {
        SHA256.hash("lease\u{0}" + name).withUnsafeBytes { $0.loadUnaligned(as: Int64.self) }
    }
}

/// The fenced writes on one PostgreSQL connection, inside `fenced`'s transaction.
struct PostgresFencedWrites: FencedWrites {
    /// The connection, in the fenced transaction.
    let connection: PostgresConnection

    /// `RecordStore.deleteIntents` in the transaction.
    func deleteIntents(imageKeys: [String]) throws(RecordsError) {
        for start in stride(from: 0, to: imageKeys.count, by: PostgresQueries.rowsPerStatement) {
            let chunk = Array(imageKeys[start..<min(start + PostgresQueries.rowsPerStatement, imageKeys.count)])
            _ = try connection.execute(PostgresQueries.deleteIntents(count: chunk.count), chunk.map { .text($0) })
        }
    }

    /// `RecordStore.finishObjectDeletions` in the transaction.
    func finishObjectDeletions(_ objectKeys: [String]) throws(RecordsError) {
        for key in objectKeys {
            _ = try connection.executePrepared(SlotQueries.postgres.finishDeletion, [.text(key)])
        }
    }

    /// `QuotaStore.releaseQuotas` in the transaction.
    func releaseQuotas(imageKeys: [String]) throws(RecordsError) -> Int {
        try PostgresRecordStore.releaseQuotasInTransaction(imageKeys, connection)
    }

    /// `MultipartLedger.removeMultipartUploads` in the transaction.
    func removeMultipartUploads(_ uploads: [(objectKey: String, uploadId: String)]) throws(RecordsError) {
        for upload in uploads {
            _ = try connection.executePrepared(
                ExactlyOnceQueries.postgres.removeUpload, [.text(upload.objectKey), .text(upload.uploadId)])
        }
    }

    /// `WebhookOutbox.settleWebhookDelivery` in the transaction.
    func settleWebhookDelivery(seq: Int64, attempt: WebhookAttempt, nowMs: Int64) throws(RecordsError) -> Bool {
        try PostgresRecordStore.settle(seq: seq, attempt: attempt, nowMs: nowMs, connection)
    }

    /// `FencedWrites.settleDelivered` in one statement over an array of seqs.
    func settleDelivered(seqs: [Int64], nowMs: Int64) throws(RecordsError) -> Int {
        guard !seqs.isEmpty else { return 0 }
        var array = PostgresArray(capacity: seqs.count * 8)
        for seq in seqs { array.append(seq) }
        return try connection.executePrepared(
            OutboxQueries.postgresDeliveredMany, [.text(array.literal), .int(nowMs)]
        ).affectedRows
    }

    /// `ScanQueue.settleScan` in the transaction.
    func settleScan(id: String, _ settlement: ScanSettlement, events: (ImageRecord) -> [OutboxEvent])
        throws(RecordsError) -> ImageRecord?
    {
        try PostgresRecordStore.settleScanInTransaction(id: id, settlement, events: events, connection)
    }
}
