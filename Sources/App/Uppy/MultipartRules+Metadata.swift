import JSON
import Uploads

extension MultipartRules {
    /// The most metadata entries an upload may carry.
    static let maxMetadataEntries = 32
    /// The longest metadata key, in bytes.
    static let maxMetadataKeyBytes = 128
    /// The longest metadata value, in bytes.
    static let maxMetadataValueBytes = 1024
    /// Metadata keys that steer the upload and are not kept on the record: `uploadType` picks the
    /// upload type, which the record keeps as its `type`. (`chatroomId`, which fills `{chatroomId}`, is
    /// kept: the record says nowhere else which chat room it belongs to.)
    static let controlMetadataKeys: Set<String> = ["uploadType"]

    /// Uppy's file metadata (`metadata` of `POST /s3/multipart`, `metadata[k]=v` of `GET /s3/params`),
    /// checked: the entries in the order given, and what the record keeps of them.
    struct Metadata: Sendable, Equatable {
        /// Every entry, in the order given (control keys included).
        let entries: [Entry]

        /// One key and its value.
        struct Entry: Sendable, Equatable {
            let key: String
            let value: String
        }

        /// No metadata.
        static let none = Metadata(entries: [])

        /// The value of `key`, if given.
        func value(_ key: String) -> String? { entries.first { $0.key == key }?.value }

        /// The record's `metadata`: the entries but the control keys, in the order given, as a JSON
        /// object of strings; nil when none is left.
        var recordJSON: String? {
            let kept = entries.filter { !MultipartRules.controlMetadataKeys.contains($0.key) }
            guard !kept.isEmpty else { return nil }
            var w = JSONWriter(
                reservingCapacity: 2 + kept.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count + 6 })
            w.beginObject()
            for e in kept {
                w.key(e.key)
                w.string(e.value)
            }
            w.endObject()
            return String(decoding: w.bytes, as: UTF8.self)
        }
    }

    /// Checks metadata entries (400 as Companion answers bad input): at most `maxMetadataEntries`, each
    /// key 1...`maxMetadataKeyBytes` bytes without control characters and given once, each value a
    /// string of at most `maxMetadataValueBytes` bytes, and what the record keeps within the records'
    /// metadata limit (`UploadRules.maxMetadataBytes`) once written as JSON. `nil` values stand for a
    /// value that is not a string (a JSON body's number, object, `null`, …).
    static func metadata(_ given: [(key: String, value: String?)]) -> Result<Metadata, CompanionError> {
        guard given.count <= maxMetadataEntries else {
            return .failure(.badMetadata("s3: metadata may have at most \(maxMetadataEntries) entries"))
        }
        var entries: [Metadata.Entry] = []
        entries.reserveCapacity(given.count)
        for (key, value) in given {
            guard !key.isEmpty, key.utf8.count <= maxMetadataKeyBytes,
                !key.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
            else {
                return .failure(
                    .badMetadata(
                        "s3: metadata keys must be 1 to \(maxMetadataKeyBytes) bytes without control characters"))
            }
            guard let value else { return .failure(.badMetadata("s3: metadata values must be strings")) }
            guard value.utf8.count <= maxMetadataValueBytes else {
                return .failure(.badMetadata("s3: metadata values must be at most \(maxMetadataValueBytes) bytes"))
            }
            // Byte comparison: Swift's == takes an NFD key for its NFC spelling, and both would be kept.
            guard !entries.contains(where: { $0.key.utf8.elementsEqual(key.utf8) }) else {
                return .failure(.badMetadata("s3: a metadata key is given twice"))
            }
            entries.append(Metadata.Entry(key: key, value: value))
        }
        let metadata = Metadata(entries: entries)
        if let json = metadata.recordJSON, json.utf8.count > UploadRules.maxMetadataBytes {
            return .failure(.badMetadata("s3: metadata must be at most \(UploadRules.maxMetadataBytes) bytes as JSON"))
        }
        return .success(metadata)
    }

    /// The `metadata` member of a creation body: absent or `null` is none; anything but an object is a 400.
    static func metadata(member: JSONValue?) -> Result<Metadata, CompanionError> {
        guard let member, !member.isNull else { return .success(.none) }
        guard let object = member.objectValue else { return .failure(.badMetadata("s3: metadata must be an object")) }
        var given: [(key: String, value: String?)] = []
        given.reserveCapacity(object.count)
        for m in object { given.append((m.key, m.value.stringValue)) }
        return metadata(given)
    }
}
