import CSQLite

/// Writes intents as rows of `intents` through the prepared multi-row statements of `SQLiteQueries`,
/// inside the caller's transaction on the writer: a key that may have been issued before is upserted
/// unless it has a record; a fresh key (`UploadIntent.freshKey`) is inserted without looking for a
/// record first (nobody knew it before its URL), and only a key that was taken after all (a UUID source
/// that repeats) looks for one before its row is replaced. One key twice in a batch: the later wins.
///
/// Each statement's text is copied once into one buffer sized beforehand and bound from it without
/// another copy (`SQLITE_STATIC`). After the step the statement is reset, not cleared: its bindings
/// point into the freed buffer until its next use binds every parameter again, and SQLite reads
/// bindings only while stepping.
enum SQLiteIntentRows {
    /// Stores `intents` (the upsert rules of `RecordStore.putIntents`); refuses the whole batch with
    /// `.constraint` when an allowed content type is empty or holds a line feed.
    static func store(_ intents: [UploadIntent], _ connection: SQLiteConnection) throws(RecordsError) {
        var allFresh = true
        for i in intents.indices {  // by index: iterating would copy (retain) every intent
            try AllowedContentTypes.validate(intents[i].allowedContentTypes)
            allFresh = allFresh && intents[i].freshKey
        }
        // Usually every key of a batch is fresh (the issue route's): then nothing is copied.
        if allFresh {
            try write(.fresh, intents, connection)
        } else {
            try write(.fresh, intents.filter(\.freshKey), connection)
            try write(.other, intents.filter { !$0.freshKey }, connection)
        }
    }

    /// Writes `intents` through `kind`'s statements, `SQLiteQueries.intentRowsPerStatement` rows each.
    private static func write(_ kind: Statement, _ intents: [UploadIntent], _ connection: SQLiteConnection)
        throws(RecordsError)
    {
        let step = SQLiteQueries.intentRowsPerStatement
        for start in stride(from: 0, to: intents.count, by: step) {
            try write(kind, intents[start..<min(start + step, intents.count)], connection)
        }
    }

    /// The two multi-row statements.
    private enum Statement: Int {
        /// `SQLiteQueries.insertFreshIntents`.
        case fresh
        /// `SQLiteQueries.upsertIntents`.
        case other
    }

    /// Runs `kind`'s statement for `intents.count` rows with the intents' values.
    private static func write(_ kind: Statement, _ intents: ArraySlice<UploadIntent>, _ connection: SQLiteConnection)
        throws(RecordsError)
    {
        let rows = intents.count
        let statement = try connection.statement(number: kind.rawValue * 1000 + rows) {
            kind == .fresh ? SQLiteQueries.insertFreshIntents(rows: rows) : SQLiteQueries.upsertIntents(rows: rows)
        }
        let handle = statement.handle
        // The texts of the rows, copied into one buffer sized for them.
        var size = 0
        for i in intents.indices {
            size += intents[i].imageKey.utf8.count + intents[i].ownerId.utf8.count + intents[i].objectKey.utf8.count
            size += (intents[i].permanentKey?.utf8.count ?? 0) + intents[i].type.utf8.count
            size += (intents[i].contentType?.utf8.count ?? 0) + (intents[i].metadataJSON?.utf8.count ?? 0)
            size += (intents[i].checksumSHA256?.utf8.count ?? 0) + (intents[i].contentMD5?.utf8.count ?? 0)
            for type in intents[i].allowedContentTypes { size += type.utf8.count + 1 }
        }
        var buffer = TextBuffer(capacity: size)
        defer { buffer.deallocate() }
        var code = SQLITE_OK
        /// Binds `text` (NULL for nil), copied into the buffer, to parameter `index`.
        func bind(_ text: String?, _ index: Int32) {
            guard code == SQLITE_OK else { return }
            guard let text else {
                code = sqlite3_bind_null(handle, index)
                return
            }
            let (start, length) = buffer.append(text)
            code = sqlite3_bind_text(handle, index, start, Int32(length), nil)
        }
        var index: Int32 = 1
        for i in intents.indices where code == SQLITE_OK {
            code = sqlite3_bind_int64(handle, index, IntentKeyOrder.of(intents[i].imageKey))
            bind(intents[i].imageKey, index + 1)
            bind(intents[i].ownerId, index + 2)
            bind(intents[i].objectKey, index + 3)
            bind(intents[i].permanentKey, index + 4)
            bind(intents[i].type, index + 5)
            bind(intents[i].contentType, index + 6)
            if code == SQLITE_OK {
                let (start, length) = buffer.append(joining: intents[i].allowedContentTypes)
                code = sqlite3_bind_text(handle, index + 7, start, Int32(length), nil)
            }
            if code == SQLITE_OK { code = sqlite3_bind_int64(handle, index + 8, intents[i].maxBytes) }
            if code == SQLITE_OK { code = sqlite3_bind_int64(handle, index + 9, intents[i].createdAtMs) }
            if code == SQLITE_OK { code = sqlite3_bind_int64(handle, index + 10, intents[i].expiresAtMs) }
            bind(intents[i].metadataJSON, index + 11)
            if code == SQLITE_OK {
                if let declared = intents[i].declaredSize {
                    code = sqlite3_bind_int64(handle, index + 12, declared)
                } else {
                    code = sqlite3_bind_null(handle, index + 12)
                }
            }
            bind(intents[i].checksumSHA256, index + 13)
            bind(intents[i].contentMD5, index + 14)
            index += Int32(SQLiteQueries.valuesPerIntent)
        }
        if code == SQLITE_OK {
            code = sqlite3_step(handle)
            if code == SQLITE_DONE { code = SQLITE_OK }
        }
        if code != SQLITE_OK {
            let error = SQLiteConnection.error(code: code, database: sqlite3_db_handle(handle), context: "intent rows")
            statement.finish()
            throw error
        }
        sqlite3_reset(handle)
    }

    /// The texts of one statement's rows, one after another in one allocation sized beforehand.
    private struct TextBuffer {
        /// The bytes (at least one, so the buffer always has an address).
        private let base: UnsafeMutablePointer<CChar>
        /// Bytes written so far.
        private var used = 0
        /// The bytes allocated.
        private let capacity: Int

        /// A buffer of `capacity` bytes.
        init(capacity: Int) {
            self.capacity = max(1, capacity)
            base = .allocate(capacity: self.capacity)
        }

        /// Frees the bytes.
        func deallocate() { base.deallocate() }

        /// Copies `text`'s UTF-8 bytes in: where they start, and their count.
        mutating func append(_ text: String) -> (UnsafePointer<CChar>, Int) {
            let start = base + used
            var text = text
            text.withUTF8 { bytes in
                precondition(used + bytes.count <= capacity, "intent text buffer sized too small")
                if let source = bytes.baseAddress {
                    UnsafeMutableRawPointer(start).copyMemory(from: source, byteCount: bytes.count)
                }
                used += bytes.count
            }
            return (UnsafePointer(start), base + used - start)
        }

        /// Copies `types` in, joined by line feeds (`AllowedContentTypes`: validated by the caller).
        mutating func append(joining types: [String]) -> (UnsafePointer<CChar>, Int) {
            let start = base + used
            for index in types.indices {
                if index > 0 {
                    precondition(used < capacity, "intent text buffer sized too small")
                    base[used] = CChar(UInt8(ascii: "\n"))
                    used += 1
                }
                _ = append(types[index])
            }
            return (UnsafePointer(start), base + used - start)
        }
    }
}
