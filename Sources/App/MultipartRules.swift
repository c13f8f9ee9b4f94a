import Config
import JSON

/// The pure rules of the multipart routes: part numbers, the `partNumbers` list, the `parts` of a
/// completion, the sizes of parts, and the file name's slug.
enum MultipartRules {
    /// S3's part numbers.
    static let partNumbers: ClosedRange<Int> = 1...10_000
    /// The smallest part but the last (S3's minimum, 5 MiB).
    static let minPartBytes: Int64 = 5 * 1024 * 1024
    /// The largest part (S3's maximum, 5 GiB).
    static let maxPartBytes: Int64 = 5 * 1024 * 1024 * 1024
    /// The most part numbers one batch signs.
    static let maxBatch = 1000
    /// The longest slug of a file name, in bytes.
    static let maxSlugBytes = 64
    /// The longest ETag accepted in a completion.
    static let maxETagBytes = 256

    /// An upload ID as the routes accept it: 1...1024 printable ASCII bytes (no space).
    static func isUploadId(_ id: String) -> Bool {
        let u = id.utf8
        guard !u.isEmpty, u.count <= 1024 else { return false }
        let checked = u.withContiguousStorageIfAvailable { bytes in
            for b in bytes where b <= 0x20 || b >= 0x7f { return false }
            return true
        }
        return checked ?? u.allSatisfy { $0 > 0x20 && $0 < 0x7f }
    }

    /// A part number: decimal digits only (no sign, space or leading zero), 1...10000.
    static func partNumber(_ text: Substring) -> Int? {
        let u = text.utf8
        guard !u.isEmpty, u.count <= 5, u.first != UInt8(ascii: "0"),
            u.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let n = Int(text),
            partNumbers.contains(n)
        else { return nil }
        return n
    }

    /// `1,2,3`: part numbers, each valid, none twice, at most `maxBatch`; nil otherwise.
    static func partNumberList(_ text: String) -> [Int]? {
        let items = text.split(separator: ",", omittingEmptySubsequences: false)
        guard !items.isEmpty, items.count <= maxBatch else { return nil }
        var seen = Set<Int>()
        var out: [Int] = []
        out.reserveCapacity(items.count)
        for item in items {
            guard let n = partNumber(item), seen.insert(n).inserted else { return nil }
            out.append(n)
        }
        return out
    }

    /// One part of a completion.
    struct Part: Sendable, Equatable {
        let number: Int
        let etag: String
    }

    /// The `parts` of a completion body: an array of 1...10000 `{PartNumber, ETag}` objects (a whole
    /// number 1...10000 and a non-empty string), no number twice, returned sorted by number.
    static func completionParts(_ body: JSONObject) -> Result<[Part], CompanionError> {
        let shape = CompanionError.badRequest("s3: `parts` must be an array of {ETag, PartNumber} objects.")
        guard let array = body["parts"]?.arrayValue, !array.isEmpty, array.count <= partNumbers.upperBound else {
            return .failure(shape)
        }
        var parts: [Part] = []
        parts.reserveCapacity(array.count)
        for item in array {
            guard let object = item.objectValue, let n = object["PartNumber"]?.intValue, partNumbers.contains(n),
                let etag = object["ETag"]?.stringValue, !etag.isEmpty, etag.utf8.count <= maxETagBytes,
                etag.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7f })
            else { return .failure(shape) }
            parts.append(Part(number: n, etag: etag))
        }
        parts.sort { $0.number < $1.number }
        for i in parts.indices.dropFirst() where parts[i].number == parts[i - 1].number {
            return .failure(.badRequest("s3: part \(parts[i].number) is listed twice"))
        }
        return .success(parts)
    }

    /// An ETag without its surrounding quotes (browsers and stores differ in sending them).
    static func bareETag(_ etag: String) -> Substring {
        var s = Substring(etag)
        if s.hasPrefix("W/") { s = s.dropFirst(2) }
        if s.hasPrefix("\"") { s = s.dropFirst() }
        if s.hasSuffix("\"") { s = s.dropLast() }
        return s
    }

    /// The file name as a key value: the last path segment without its extension, lower case, every
    /// run of characters outside `[a-z0-9_-]` (a `/`, `.`, control character, space, non-ASCII) as
    /// one `-`, no `-` at either end, at most `maxSlugBytes` bytes; `file` when nothing is left.
    static func slug(_ filename: String) -> String {
        var name = Substring(filename)
        if let slash = name.lastIndex(where: { $0 == "/" || $0 == "\\" }) { name = name[name.index(after: slash)...] }
        if let dot = name.lastIndex(of: "."), dot != name.startIndex { name = name[..<dot] }
        var out: [UInt8] = []
        out.reserveCapacity(min(name.utf8.count, maxSlugBytes))
        var pendingDash = false
        for b in name.utf8 {
            let lower = (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z")) ? b + 32 : b
            let safe =
                (lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z"))
                || (lower >= UInt8(ascii: "0") && lower <= UInt8(ascii: "9")) || lower == UInt8(ascii: "_")
            if safe {
                if pendingDash && !out.isEmpty {
                    if out.count + 1 >= maxSlugBytes { break }
                    out.append(UInt8(ascii: "-"))
                }
                pendingDash = false
                if out.count >= maxSlugBytes { break }
                out.append(lower)
            } else {
                pendingDash = true
            }
        }
        return out.isEmpty ? "file" : String(decoding: out, as: UTF8.self)
    }

    /// What is wrong with completing `given` parts from the store's `listed` ones under `maxBytes`,
    /// else the parts to send (each with the store's ETag) and their total size.
    static func checkCompletion(given: [Part], listed: [Int: (etag: String, size: Int64)], maxBytes: Int64)
        -> Result<(parts: [(number: Int, etag: String)], total: Int64), CompanionError>
    {
        var total: Int64 = 0
        var out: [(number: Int, etag: String)] = []
        out.reserveCapacity(given.count)
        for (i, part) in given.enumerated() {
            guard let stored = listed[part.number], bareETag(stored.etag) == bareETag(part.etag) else {
                return .failure(
                    CompanionError(
                        400, "INVALID_PART", "s3: part \(part.number) was not uploaded or its ETag does not match"))
            }
            if stored.size > maxPartBytes {
                return .failure(CompanionError(400, "ENTITY_TOO_LARGE", "s3: part \(part.number) is over 5 GiB"))
            }
            if i < given.count - 1 && stored.size < minPartBytes {
                return .failure(
                    CompanionError(
                        400, "ENTITY_TOO_SMALL", "s3: part \(part.number) is under 5 MiB and is not the last part"))
            }
            total += stored.size
            if total > maxBytes {
                return .failure(
                    CompanionError(
                        400, "ENTITY_TOO_LARGE", "s3: the upload is over \(maxBytes) bytes, the limit of its type"))
            }
            out.append((part.number, stored.etag))
        }
        return .success((out, total))
    }
}
