/// The binary layout of one batch of intents in SQLite's `intent_batches.data`: pure, no I/O.
///
/// A batch is a version byte followed by entries, one per intent, each found again by its byte offset
/// (the in-memory index keeps `(batch id, offset)`). An entry is its own length (4 bytes) then its fields:
/// image key, owner, object key, permanent key, type, content type (each a 4-byte length and UTF-8
/// bytes; nil is the length 0xFFFF_FFFF), the allowed content types (a 2-byte count, then strings), and
/// max bytes, created and expires (8 bytes each). Integers are little-endian. Decoding checks every
/// length against the bytes it has, so an offset that no longer starts an entry (the batch was rewritten
/// meanwhile) gives nil or an intent with another key, never a crash.
enum IntentBatchCodec {
    /// The layout version in the first byte.
    static let version: UInt8 = 1
    /// The length that stands for nil.
    private static let nilLength = UInt32.max
    /// The largest batch blob: offsets must fit the 24 bits the index keeps for them.
    static let maxBatchBytes = 1 << 24

    /// The bytes of one entry for `intent`, appended to `out`; refuses what the row layout refuses too
    /// (an empty allowed content type or one with a line feed, more than 65,535 of them).
    static func append(_ intent: UploadIntent, to out: inout [UInt8]) throws(RecordsError) {
        try AllowedContentTypes.validate(intent.allowedContentTypes)
        guard intent.allowedContentTypes.count <= Int(UInt16.max) else {
            throw .constraint("an intent allows more than 65,535 content types")
        }
        let start = out.count
        appendInteger(UInt32(0), to: &out)  // the entry length, filled in below
        appendString(intent.imageKey, to: &out)
        appendString(intent.ownerId, to: &out)
        appendString(intent.objectKey, to: &out)
        appendString(intent.permanentKey, to: &out)
        appendString(intent.type, to: &out)
        appendString(intent.contentType, to: &out)
        appendInteger(UInt16(intent.allowedContentTypes.count), to: &out)
        for type in intent.allowedContentTypes { appendString(type, to: &out) }
        appendInteger(UInt64(bitPattern: intent.maxBytes), to: &out)
        appendInteger(UInt64(bitPattern: intent.createdAtMs), to: &out)
        appendInteger(UInt64(bitPattern: intent.expiresAtMs), to: &out)
        let length = UInt32(out.count - start)
        withUnsafeBytes(of: length.littleEndian) { bytes in
            for i in 0..<4 { out[start + i] = bytes[i] }
        }
    }

    /// The intent whose entry starts at `offset` in `blob`, or nil when no whole, well-formed entry starts
    /// there.
    static func decode(_ blob: UnsafeRawBufferPointer, at offset: Int) -> UploadIntent? {
        guard blob.count > 0, blob[0] == version, offset >= 1 else { return nil }
        var reader = Reader(bytes: blob, position: offset)
        guard let length = reader.integer(UInt32.self), length >= 4, offset + Int(length) <= blob.count else {
            return nil
        }
        reader.end = offset + Int(length)
        guard let imageKey = reader.string(), let ownerId = reader.string(), let objectKey = reader.string(),
            let permanentKey = reader.optionalString(), let type = reader.string(),
            let contentType = reader.optionalString(), let count = reader.integer(UInt16.self)
        else { return nil }
        var allowed: [String] = []
        allowed.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let t = reader.string() else { return nil }
            allowed.append(t)
        }
        guard let maxBytes = reader.integer(UInt64.self), let created = reader.integer(UInt64.self),
            let expires = reader.integer(UInt64.self), reader.position == reader.end
        else { return nil }
        return UploadIntent(
            ownerId: ownerId, imageKey: imageKey, objectKey: objectKey, permanentKey: permanentKey, type: type,
            contentType: contentType, allowedContentTypes: allowed, maxBytes: Int64(bitPattern: maxBytes),
            createdAtMs: Int64(bitPattern: created), expiresAtMs: Int64(bitPattern: expires))
    }

    /// Every entry of `blob` with its offset, in order; nil when the blob is not a well-formed batch.
    static func decodeAll(_ blob: UnsafeRawBufferPointer) -> [(offset: Int, intent: UploadIntent)]? {
        guard blob.count > 0, blob[0] == version else { return nil }
        var entries: [(offset: Int, intent: UploadIntent)] = []
        var offset = 1
        while offset < blob.count {
            guard let intent = decode(blob, at: offset) else { return nil }
            entries.append((offset, intent))
            var reader = Reader(bytes: blob, position: offset)
            offset += Int(reader.integer(UInt32.self)!)
        }
        return entries
    }

    /// Encodes `intents` into batches of at most `maxBytes` each (one intent per batch at least): each
    /// batch's blob, and per intent its batch number and offset, in the order given.
    static func encode(_ intents: [UploadIntent], maxBytes: Int = maxBatchBytes) throws(RecordsError)
        -> (blobs: [[UInt8]], places: [(batch: Int, offset: Int)])
    {
        var blobs: [[UInt8]] = []
        var places: [(batch: Int, offset: Int)] = []
        places.reserveCapacity(intents.count)
        var current: [UInt8] = [version]
        current.reserveCapacity(min(maxBytes, 64 + intents.count * 256))
        for intent in intents {
            let offset = current.count
            try append(intent, to: &current)
            if current.count > maxBytes && offset > 1 {
                // Start a new batch with this entry.
                let entry = Array(current[offset...])
                current.removeSubrange(offset...)
                blobs.append(current)
                current = [version] + entry
                places.append((blobs.count, 1))
            } else {
                guard current.count <= maxBytes else {
                    throw .constraint("one intent needs \(current.count - offset) bytes, over the batch limit")
                }
                places.append((blobs.count, offset))
            }
        }
        blobs.append(current)
        return (blobs, places)
    }

    /// Appends `value` little-endian.
    private static func appendInteger<T: FixedWidthInteger>(_ value: T, to out: inout [UInt8]) {
        var remaining = value  // low byte first: little-endian on any host
        for _ in 0..<MemoryLayout<T>.size {
            out.append(UInt8(truncatingIfNeeded: remaining))
            remaining >>= 8
        }
    }

    /// Appends a string's length and bytes, or the nil length.
    private static func appendString(_ value: String?, to out: inout [UInt8]) {
        guard var text = value else {
            appendInteger(nilLength, to: &out)
            return
        }
        text.withUTF8 { bytes in
            appendInteger(UInt32(bytes.count), to: &out)
            out.append(contentsOf: bytes)  // a buffer, not the String.UTF8View: one copy, not byte by byte
        }
    }

    /// Reads fields within `position..<end`, refusing anything that would run past `end`.
    private struct Reader {
        /// The whole blob.
        let bytes: UnsafeRawBufferPointer
        /// The next byte to read.
        var position: Int
        /// One past the last byte this reader may read.
        var end: Int

        init(bytes: UnsafeRawBufferPointer, position: Int) {
            self.bytes = bytes
            self.position = position
            self.end = bytes.count
        }

        /// A little-endian integer, or nil when too few bytes are left.
        mutating func integer<T: FixedWidthInteger>(_: T.Type) -> T? {
            let size = MemoryLayout<T>.size
            guard position >= 0, end - position >= size else { return nil }
            let value = bytes.loadUnaligned(fromByteOffset: position, as: T.self)
            position += size
            return T(littleEndian: value)
        }

        /// A string that may be nil; the outer nil means malformed.
        mutating func optionalString() -> String?? {
            guard let length = integer(UInt32.self) else { return nil }
            if length == IntentBatchCodec.nilLength { return .some(nil) }
            guard end - position >= Int(length) else { return nil }
            let text = String(
                decoding: UnsafeRawBufferPointer(rebasing: bytes[position..<position + Int(length)]), as: UTF8.self)
            position += Int(length)
            return .some(text)
        }

        /// A string that must not be nil; nil means malformed.
        mutating func string() -> String? {
            guard case .some(.some(let text)) = optionalString() else { return nil }
            return text
        }
    }
}
