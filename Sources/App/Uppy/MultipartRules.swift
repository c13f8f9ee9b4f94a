import JSON
import Uploads

/// The pure rules of reading the multipart routes' requests in Companion's shapes: upload IDs, part
/// numbers, the `partNumbers` list, the `parts` of a completion (S3's own limits are `PartRules`).
enum MultipartRules {
    /// The most part numbers one batch signs.
    static let maxBatch = 1000
    /// The longest ETag accepted in a completion.
    static let maxETagBytes = 256

    /// An upload ID as the routes accept it (`UploadIdText`).
    static func isUploadId(_ id: String) -> Bool { UploadIdText.isValid(id) }

    /// A part number: decimal digits only (no sign, space or leading zero), 1...10000.
    static func partNumber(_ text: Substring) -> Int? {
        let u = text.utf8
        guard !u.isEmpty, u.count <= 5, u.first != UInt8(ascii: "0"),
            u.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let n = Int(text),
            PartRules.partNumbers.contains(n)
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

    /// The part MD5s of a request (`md5`: one base64 digest, or the batch form's comma-separated list, one
    /// per part number in their order); empty when none is given. Refused when one is not the base64 of
    /// 16 bytes, or a list does not match the part numbers.
    static func partMD5s(_ text: String?, count: Int) -> Result<[String], CompanionError> {
        guard let text else { return .success([]) }
        let items = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard items.count == count else {
            return .failure(.badPartMD5("give one MD5 per part number (\(count)), comma-separated in their order"))
        }
        for item in items {
            if let reason = DeclaredDigest.md5.problem(with: item) {
                return .failure(.badPartMD5("md5 must be the base64 of the part's MD5 (16 bytes): \(reason)"))
            }
        }
        return .success(items)
    }

    /// The `parts` of a completion body: an array of 1...10000 `{PartNumber, ETag}` objects (a whole
    /// number 1...10000 and a non-empty string), no number twice, returned sorted by number.
    static func completionParts(_ body: JSONObject) -> Result<[PartRules.Part], CompanionError> {
        let shape = CompanionError.badParts
        guard let array = body["parts"]?.arrayValue, !array.isEmpty, array.count <= PartRules.partNumbers.upperBound
        else {
            return .failure(shape)
        }
        var parts: [PartRules.Part] = []
        parts.reserveCapacity(array.count)
        for item in array {
            guard let object = item.objectValue, let n = object["PartNumber"]?.intValue,
                PartRules.partNumbers.contains(n),
                let etag = object["ETag"]?.stringValue, !etag.isEmpty, etag.utf8.count <= maxETagBytes,
                etag.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7f })
            else { return .failure(shape) }
            parts.append(PartRules.Part(number: n, etag: etag))
        }
        parts.sort { $0.number < $1.number }
        for i in parts.indices.dropFirst() where parts[i].number == parts[i - 1].number {
            return .failure(.partListedTwice(parts[i].number))
        }
        return .success(parts)
    }
}
