extension SQLiteRecordStore {
    /// Upserts intents in one transaction (`SQLiteIntentRows`); keys that already have a record are
    /// skipped. Committed without its own fsync (`synchronous=NORMAL`): it survives a crash of the
    /// process, and the next durable commit syncs it.
    public func putIntents(_ intents: [UploadIntent]) throws(RecordsError) {
        guard !intents.isEmpty else { return }
        try write(durable: false) { (connection) throws(RecordsError) in
            try SQLiteIntentRows.store(intents, connection)
        }
    }

    /// The intent for `imageKey`: one primary-key lookup by its order and the key, byte for byte.
    public func intent(imageKey: String) throws(RecordsError) -> UploadIntent? {
        try read { (connection) throws(RecordsError) in
            try connection.query(
                SQLiteQueries.intentByKey, [.int(IntentKeyOrder.of(imageKey)), .text(imageKey)],
                row: Self.intent(from:)
            ).first
        }
    }

    /// Expired, unconfirmed intents, soonest-expired first: the front of the rows in expiry order and
    /// the other rows through the expiry index, merged. First the expired intents of recorded keys are
    /// deleted (never returned, they would otherwise be read past at every pass), at most
    /// `tidyChunk` per transaction, the writer released in between.
    public func expiredIntents(nowMs: Int64, limit: Int) throws(RecordsError) -> [UploadIntent] {
        try RecordStoreLimits.checkBatchLimit(limit)
        let bound = IntentKeyOrder.bound(expiredBy: nowMs)
        while try write(
            durable: false,
            { (connection) throws(RecordsError) -> Int in
                let rows = try connection.query(
                    SQLiteQueries.expiredRecorded, [.int(bound), .int(nowMs), .int(Int64(Self.tidyChunk))]
                ) { (order: $0.int64(0), key: $0.text(1)) }
                for row in rows { try connection.run(SQLiteQueries.deleteIntent, [.int(row.order), .text(row.key)]) }
                return rows.count
            }) == Self.tidyChunk
        {}
        let found = try read { (connection) throws(RecordsError) -> [UploadIntent] in
            try connection.query(
                SQLiteQueries.expiredInKeyOrder, [.int(bound), .int(Int64(limit))], row: Self.intent(from:))
                + connection.query(
                    SQLiteQueries.expiredByExpiry, [.int(nowMs), .int(Int64(limit))], row: Self.intent(from:))
        }
        return Array(found.sorted(by: Self.expiryOrder).prefix(limit))
    }

    /// The most expired intents of recorded keys one transaction of `expiredIntents` deletes.
    static let tidyChunk = 4096

    /// Soonest expiry first, then image keys in byte order (SQLite's `ORDER BY expires_at_ms, image_key`).
    static func expiryOrder(_ a: UploadIntent, _ b: UploadIntent) -> Bool {
        if a.expiresAtMs != b.expiresAtMs { return a.expiresAtMs < b.expiresAtMs }
        return a.imageKey.utf8.lexicographicallyPrecedes(b.imageKey.utf8)
    }

    /// Deletes intents by key in one transaction (without its own fsync: a deletion lost in a crash is
    /// done again by the janitor's next pass).
    public func deleteIntents(imageKeys: [String]) throws(RecordsError) {
        guard !imageKeys.isEmpty else { return }
        try write(durable: false) { (connection) throws(RecordsError) in
            try deleteIntentsInTransaction(imageKeys, connection)
        }
    }

    /// Deletes intents by key inside the caller's write transaction on `connection`.
    func deleteIntentsInTransaction(_ imageKeys: [String], _ connection: SQLiteConnection) throws(RecordsError) {
        for key in imageKeys {
            try connection.run(SQLiteQueries.deleteIntent, [.int(IntentKeyOrder.of(key)), .text(key)])
        }
    }
}
