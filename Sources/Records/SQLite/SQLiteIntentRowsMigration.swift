/// Schema version 10's program: moves the intents of the layouts before it into the rows of `intents`.
///
/// Before version 10, SQLite kept intents in `intent_batches` (one row per committed batch, a blob of
/// entries) and, for files written by older builds, in a per-row table (renamed `intents_v9` by the
/// version's statements). Every intent those builds would find is moved, as they would find it: the
/// per-row table first, then the batches in id order, a later entry of a key replacing an earlier one
/// (the batches' index found the newest entry, and looked in the per-row table only when it had none).
/// Expired intents and intents of recorded keys move too: the janitor decides about them as before.
/// Then both old tables are dropped. It runs inside the migration's one transaction.
enum SQLiteIntentRowsMigration {
    /// Moves the intents and drops the old tables.
    static func run(_ connection: SQLiteConnection) throws(RecordsError) {
        let upsert = """
            INSERT INTO intents (key_order, \(Schema.intentColumnsV10)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
            ON CONFLICT (key_order, image_key) DO UPDATE SET
                owner_id = excluded.owner_id, object_key = excluded.object_key, permanent_key = excluded.permanent_key,
                type = excluded.type, content_type = excluded.content_type,
                allowed_content_types = excluded.allowed_content_types, max_bytes = excluded.max_bytes,
                created_at_ms = excluded.created_at_ms, expires_at_ms = excluded.expires_at_ms,
                metadata = excluded.metadata
            """
        /// Writes `intent` as a row, replacing the row of its key.
        func move(_ intent: UploadIntent) throws(RecordsError) {
            // Version 10's columns: version 11 adds the declared size and digests after this program.
            let values = try Schema.values(of: intent)
            try connection.run(upsert, [.int(IntentKeyOrder.of(intent.imageKey))] + values.prefix(11))
        }
        // The row reader reads version 11's columns too: none of these intents declared them.
        _ = try connection.query(
            "SELECT \(Schema.intentColumnsV10), NULL, NULL, NULL FROM intents_v9 ORDER BY rowid", []
        ) {
            (row) throws(RecordsError) in try move(SQLiteRecordStore.intent(from: row))
        }
        _ = try connection.query("SELECT id, data FROM intent_batches ORDER BY id", []) {
            (row) throws(RecordsError) in
            let id = row.int64(0)
            let entries = try row.withBlob(1) { (blob) throws(RecordsError) -> [UploadIntent] in
                guard let entries = LegacyBatch.decode(blob) else {
                    throw .corrupt("intent batch \(id) cannot be decoded")
                }
                return entries
            }
            for intent in entries { try move(intent) }
        }
        try connection.execute("DROP TABLE intents_v9")
        try connection.execute("DROP TABLE intent_batches")
        try connection.execute("DELETE FROM sqlite_sequence WHERE name = 'intent_batches'")
    }

    /// The layout of a batch blob before version 10 (layout version 1), read only here.
    ///
    /// A version byte, then entries: each its length (4 bytes), then image key, owner, object key,
    /// permanent key, type, content type (each a 4-byte length and UTF-8 bytes; nil is the length
    /// 0xFFFF_FFFF; an object key equal to the image key is the length 0xFFFF_FFFE alone), the allowed
    /// content types (a 2-byte count, then strings), max bytes, created and expires (8 bytes each), and,
    /// only when the intent had metadata, the metadata (a string). Integers are little-endian.
    enum LegacyBatch {
        /// Every entry of `blob`, in order; nil when it is not a well-formed batch.
        static func decode(_ blob: UnsafeRawBufferPointer) -> [UploadIntent]? {
            guard blob.count > 0, blob[0] == 1 else { return nil }
            var intents: [UploadIntent] = []
            var offset = 1
            while offset < blob.count {
                var reader = Reader(bytes: blob, position: offset)
                guard let length = reader.integer(UInt32.self), length >= 4, offset + Int(length) <= blob.count,
                    let intent = reader.entry(end: offset + Int(length))
                else { return nil }
                intents.append(intent)
                offset += Int(length)
            }
            return intents
        }

        /// Reads fields within `position..<end`, refusing anything that would run past `end`.
        struct Reader {
            /// The whole blob.
            let bytes: UnsafeRawBufferPointer
            /// The next byte to read.
            var position: Int
            /// One past the last byte this reader may read.
            var end: Int

            /// A reader of `bytes` from `position`.
            init(bytes: UnsafeRawBufferPointer, position: Int) {
                self.bytes = bytes
                self.position = position
                self.end = bytes.count
            }

            /// The entry that ends at `end` (after its length), or nil when malformed.
            mutating func entry(end: Int) -> UploadIntent? {
                self.end = end
                guard let imageKey = string(), let ownerId = string(), let objectKey = objectKey(imageKey: imageKey),
                    let permanentKey = optionalString(), let type = string(), let contentType = optionalString(),
                    let count = integer(UInt16.self)
                else { return nil }
                var allowed: [String] = []
                for _ in 0..<count {
                    guard let text = string() else { return nil }
                    allowed.append(text)
                }
                guard let maxBytes = integer(UInt64.self), let created = integer(UInt64.self),
                    let expires = integer(UInt64.self)
                else { return nil }
                var metadata: String?
                if position < end {
                    guard let text = string() else { return nil }
                    metadata = text
                }
                guard position == end else { return nil }
                return UploadIntent(
                    ownerId: ownerId, imageKey: imageKey, objectKey: objectKey, permanentKey: permanentKey, type: type,
                    contentType: contentType, allowedContentTypes: allowed, maxBytes: Int64(bitPattern: maxBytes),
                    createdAtMs: Int64(bitPattern: created), expiresAtMs: Int64(bitPattern: expires),
                    metadataJSON: metadata)
            }

            /// A little-endian integer, or nil when too few bytes are left.
            mutating func integer<T: FixedWidthInteger>(_: T.Type) -> T? {
                let size = MemoryLayout<T>.size
                guard end - position >= size else { return nil }
                let value = bytes.loadUnaligned(fromByteOffset: position, as: T.self)
                position += size
                return T(littleEndian: value)
            }

            /// A string that may be nil; the outer nil means malformed.
            mutating func optionalString() -> String?? {
                guard let length = integer(UInt32.self) else { return nil }
                if length == UInt32.max { return .some(nil) }
                guard end - position >= Int(length) else { return nil }
                let text = String(
                    decoding: UnsafeRawBufferPointer(rebasing: bytes[position..<position + Int(length)]), as: UTF8.self)
                position += Int(length)
                return .some(text)
            }

            /// The object key: a string, or the mark for "the image key"; nil means malformed.
            mutating func objectKey(imageKey: String) -> String? {
                guard end - position >= 4 else { return nil }
                if UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt32.self)) == UInt32.max
                    - 1
                {
                    position += 4
                    return imageKey
                }
                return string()
            }

            /// A string that must not be nil; nil means malformed.
            mutating func string() -> String? {
                guard case .some(.some(let text)) = optionalString() else { return nil }
                return text
            }
        }
    }
}
