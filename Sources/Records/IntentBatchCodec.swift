/// The binary layout of one batch of intents in SQLite's `intent_batches.data`: pure, no I/O.
///
/// A batch is a version byte followed by entries, one per intent, each found again by its byte offset
/// (the in-memory index keeps `(batch id, offset)`). An entry is its own length (4 bytes) then its fields:
/// image key, owner, object key, permanent key, type, content type (each a 4-byte length and UTF-8
/// bytes; nil is the length 0xFFFF_FFFF, and an object key equal to the image key is the length
/// 0xFFFF_FFFE alone), the allowed content types (a 2-byte count, then strings), and
/// max bytes, created and expires (8 bytes each), then, only when the intent has metadata, the metadata
/// (a string: an entry without it ends after expires, as every entry written before metadata existed
/// does, so the layout version stays 1). Integers are little-endian. Decoding checks every
/// length against the bytes it has, so an offset that no longer starts an entry (the batch was rewritten
/// meanwhile) gives nil or an intent with another key, never a crash.
enum IntentBatchCodec {
    /// The layout version in the first byte.
    static let version: UInt8 = 1
    /// The length that stands for nil.
    fileprivate static let nilLength = UInt32.max
    /// The object key's length when it equals the image key (client P's intents): stored once.
    fileprivate static let sameAsImageKeyLength = UInt32.max - 1
    /// The largest batch blob: offsets must fit the 24 bits the index keeps for them.
    static let maxBatchBytes = 1 << 24

    /// The size of the entry for `intent`; refuses what the row layout refuses too (an empty allowed
    /// content type or one with a line feed) and what this layout cannot hold.
    static func entrySize(_ intent: UploadIntent) throws(RecordsError) -> Int {
        try AllowedContentTypes.validate(intent.allowedContentTypes)
        guard intent.allowedContentTypes.count <= Int(UInt16.max) else {
            throw .constraint("an intent allows more than 65,535 content types")
        }
        var size = 4 + 6 * 4 + 2 + 3 * 8 + 4 * intent.allowedContentTypes.count
        size += intent.imageKey.utf8.count + intent.ownerId.utf8.count
        if !objectKeyIsImageKey(intent) { size += intent.objectKey.utf8.count }
        size += (intent.permanentKey?.utf8.count ?? 0) + intent.type.utf8.count + (intent.contentType?.utf8.count ?? 0)
        for text in intent.allowedContentTypes { size += text.utf8.count }
        if let metadata = intent.metadataJSON { size += 4 + metadata.utf8.count }
        guard size <= Int(UInt32.max) else { throw .constraint("an intent of \(size) bytes is too large") }
        return size
    }

    /// Whether the object key is byte for byte the image key (Swift's `==` would also accept an NFD
    /// spelling of an NFC key, and the decoded object key would then come back with other bytes).
    private static func objectKeyIsImageKey(_ intent: UploadIntent) -> Bool {
        intent.objectKey.hasSameBytes(as: intent.imageKey)
    }

    /// Writes the entry for `intent`, `size` bytes as `entrySize` gave, at `base`.
    private static func write(_ intent: UploadIntent, size: Int, at base: UnsafeMutableRawPointer) {
        var writer = Writer(base: base)
        writer.integer(UInt32(size))
        writer.string(intent.imageKey)
        writer.string(intent.ownerId)
        if objectKeyIsImageKey(intent) {
            writer.integer(sameAsImageKeyLength)
        } else {
            writer.string(intent.objectKey)
        }
        writer.string(intent.permanentKey)
        writer.string(intent.type)
        writer.string(intent.contentType)
        writer.integer(UInt16(intent.allowedContentTypes.count))
        for text in intent.allowedContentTypes { writer.string(text) }
        writer.integer(UInt64(bitPattern: intent.maxBytes))
        writer.integer(UInt64(bitPattern: intent.createdAtMs))
        writer.integer(UInt64(bitPattern: intent.expiresAtMs))
        if let metadata = intent.metadataJSON { writer.string(metadata) }
        precondition(writer.position == size, "intent entry size miscounted")
    }

    /// Writes fields into memory sized for them beforehand.
    private struct Writer {
        /// Where the entry starts.
        let base: UnsafeMutableRawPointer
        /// The next byte to write, from `base`.
        var position = 0

        /// Writes `value` little-endian.
        mutating func integer<T: FixedWidthInteger>(_ value: T) {
            base.storeBytes(of: value.littleEndian, toByteOffset: position, as: T.self)
            position += MemoryLayout<T>.size
        }

        /// Writes a string's length and bytes, or the nil length.
        mutating func string(_ value: String?) {
            guard var text = value else {
                integer(IntentBatchCodec.nilLength)
                return
            }
            text.withUTF8 { bytes in
                integer(UInt32(bytes.count))
                if let source = bytes.baseAddress { (base + position).copyMemory(from: source, byteCount: bytes.count) }
                position += bytes.count
            }
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
        guard let imageKey = reader.string(), let ownerId = reader.string(),
            let objectKey = reader.objectKey(imageKey: imageKey),
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
            let expires = reader.integer(UInt64.self)
        else { return nil }
        var metadata: String?
        if reader.position < reader.end {
            guard let text = reader.string() else { return nil }
            metadata = text
        }
        guard reader.position == reader.end else { return nil }
        return UploadIntent(
            ownerId: ownerId, imageKey: imageKey, objectKey: objectKey, permanentKey: permanentKey, type: type,
            contentType: contentType, allowedContentTypes: allowed, maxBytes: Int64(bitPattern: maxBytes),
            createdAtMs: Int64(bitPattern: created), expiresAtMs: Int64(bitPattern: expires), metadataJSON: metadata)
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
    /// batch's blob, and per intent its batch number and offset, in the order given. Sizes every entry
    /// first, so each blob is allocated once and written in place.
    static func encode(_ intents: [UploadIntent], maxBytes: Int = maxBatchBytes) throws(RecordsError)
        -> (blobs: [[UInt8]], places: [(batch: Int, offset: Int)])
    {
        var sizes: [Int] = []
        sizes.reserveCapacity(intents.count)
        var places: [(batch: Int, offset: Int)] = []
        places.reserveCapacity(intents.count)
        var blobSizes: [Int] = []
        var used = 1
        for i in intents.indices {  // by index: iterating would copy (retain) every intent
            let size = try entrySize(intents[i])
            guard 1 + size <= maxBytes else {
                throw .constraint("one intent needs \(size) bytes, over the batch limit of \(maxBytes)")
            }
            if used + size > maxBytes {
                blobSizes.append(used)
                used = 1
            }
            places.append((blobSizes.count, used))
            sizes.append(size)
            used += size
        }
        blobSizes.append(used)
        var blobs: [[UInt8]] = []
        blobs.reserveCapacity(blobSizes.count)
        var next = 0
        for (batch, total) in blobSizes.enumerated() {
            blobs.append(
                [UInt8](unsafeUninitializedCapacity: total) { buffer, count in
                    let base = UnsafeMutableRawPointer(buffer.baseAddress!)
                    base.storeBytes(of: version, as: UInt8.self)
                    while next < intents.count && places[next].batch == batch {
                        write(intents[next], size: sizes[next], at: base + places[next].offset)
                        next += 1
                    }
                    count = total
                })
        }
        return (blobs, places)
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

        /// The object key: a string, or the marker for "the image key"; nil means malformed.
        mutating func objectKey(imageKey: String) -> String? {
            guard end - position >= 4 else { return nil }
            let length = bytes.loadUnaligned(fromByteOffset: position, as: UInt32.self)
            if UInt32(littleEndian: length) == IntentBatchCodec.sameAsImageKeyLength {
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
