import System

/// The XML of S3's multipart calls: the CompleteMultipartUpload body it sends, and the answers it
/// reads (InitiateMultipartUploadResult, ListPartsResult, ListMultipartUploadsResult,
/// CompleteMultipartUploadResult). Pure.
///
/// Strict: the root element must be the expected one, every required element present and well
/// formed (part numbers 1...10000 and ascending, sizes not negative, timestamps ISO 8601 UTC), and a
/// page holds no more entries than were asked for; anything else is `.malformedResponse`. Bounded:
/// the body is already limited by `maxResponseBytes`, and each scan moves forward only.
enum MultipartXML {
    /// A ListParts page: its parts, and the marker of the next page when it is truncated.
    struct PartsPage: Equatable {
        /// The parts, in ascending part-number order.
        var parts: [UploadedPart]
        /// `NextPartNumberMarker` when `IsTruncated` is true, else nil.
        var nextPartNumberMarker: Int?
    }

    /// The body of CompleteMultipartUpload: each part's number and ETag, in the order given, ETags
    /// XML-escaped (their quotes become `&quot;`).
    static func completeBody(_ parts: [(partNumber: Int, etag: String)]) -> [UInt8] {
        var body = Array(#"<CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/">"#.utf8)
        for part in parts {
            body.append(contentsOf: "<Part><PartNumber>\(part.partNumber)</PartNumber><ETag>".utf8)
            appendEscaped(part.etag, to: &body)
            body.append(contentsOf: "</ETag></Part>".utf8)
        }
        body.append(contentsOf: "</CompleteMultipartUpload>".utf8)
        return body
    }

    /// Writes `text` with `&`, `<`, `>`, `"` and `'` as entities.
    static func appendEscaped(_ text: String, to output: inout [UInt8]) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): output.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): output.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): output.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "\""): output.append(contentsOf: "&quot;".utf8)
            case UInt8(ascii: "'"): output.append(contentsOf: "&apos;".utf8)
            default: output.append(byte)
            }
        }
    }

    /// The `UploadId` of an InitiateMultipartUploadResult.
    static func uploadId(fromInitiate body: [UInt8]) throws(ObjectStoreError) -> String {
        try expectRoot("InitiateMultipartUploadResult", body)
        guard let uploadId = S3XML.firstElementText("UploadId", in: body), !uploadId.isEmpty,
            uploadId.utf8.count <= 1024
        else { throw .malformedResponse("InitiateMultipartUploadResult without an UploadId") }
        return uploadId
    }

    /// A ListPartsResult page that was asked for at most `maxParts` parts after `marker`.
    static func partsPage(_ body: [UInt8], maxParts: Int, after marker: Int) throws(ObjectStoreError) -> PartsPage {
        try expectRoot("ListPartsResult", body)
        let elements = try self.elements("Part", in: body, limit: maxParts)
        var parts = [UploadedPart]()
        parts.reserveCapacity(elements.count)
        var previous = marker
        for element in elements {
            guard let number = S3XML.firstElementText("PartNumber", in: element).flatMap({ Int($0) }),
                (1...10_000).contains(number), number > previous
            else { throw .malformedResponse("ListParts: a part number missing, out of range or not ascending") }
            guard let etag = S3XML.firstElementText("ETag", in: element), !etag.isEmpty, etag.utf8.count <= 256 else {
                throw .malformedResponse("ListParts: part \(number) has no ETag")
            }
            guard let size = S3XML.firstElementText("Size", in: element).flatMap({ Int64($0) }), size >= 0 else {
                throw .malformedResponse("ListParts: part \(number) has no valid Size")
            }
            guard
                let modified = S3XML.firstElementText("LastModified", in: element).flatMap(
                    ISO8601Timestamp.epochSeconds)
            else { throw .malformedResponse("ListParts: part \(number) has no valid LastModified") }
            parts.append(UploadedPart(partNumber: number, etag: etag, size: size, lastModified: modified))
            previous = number
        }
        guard try isTruncated(body) else { return PartsPage(parts: parts, nextPartNumberMarker: nil) }
        guard let next = S3XML.firstElementText("NextPartNumberMarker", in: body).flatMap({ Int($0) }),
            next > marker, next < 10_000, next >= previous
        else { throw .malformedResponse("ListParts: truncated without a NextPartNumberMarker past \(marker)") }
        return PartsPage(parts: parts, nextPartNumberMarker: next)
    }

    /// A ListMultipartUploadsResult page that was asked for at most `maxUploads` uploads.
    static func uploadsPage(_ body: [UInt8], maxUploads: Int) throws(ObjectStoreError) -> MultipartUploadPage {
        try expectRoot("ListMultipartUploadsResult", body)
        var uploads = [MultipartUploadPage.Upload]()
        for element in try elements("Upload", in: body, limit: maxUploads) {
            guard let key = S3XML.firstElementText("Key", in: element), !key.isEmpty,
                let uploadId = S3XML.firstElementText("UploadId", in: element), !uploadId.isEmpty,
                let initiated = S3XML.firstElementText("Initiated", in: element).flatMap(ISO8601Timestamp.epochSeconds)
            else { throw .malformedResponse("ListMultipartUploads: an Upload without Key, UploadId or Initiated") }
            uploads.append(MultipartUploadPage.Upload(key: key, uploadId: uploadId, initiated: initiated))
        }
        guard try isTruncated(body) else {
            return MultipartUploadPage(uploads: uploads, nextKeyMarker: nil, nextUploadIdMarker: nil)
        }
        guard let nextKey = S3XML.firstElementText("NextKeyMarker", in: body), !nextKey.isEmpty else {
            throw .malformedResponse("ListMultipartUploads: truncated without a NextKeyMarker")
        }
        let nextUploadId = S3XML.firstElementText("NextUploadIdMarker", in: body).flatMap { $0.isEmpty ? nil : $0 }
        return MultipartUploadPage(uploads: uploads, nextKeyMarker: nextKey, nextUploadIdMarker: nextUploadId)
    }

    /// A CompleteMultipartUploadResult, or the `<Error>` S3 may send after a 200 status line.
    ///
    /// The ETag may be empty: Ceph RGW 16.2 answers `<ETag></ETag>` (the caller then asks a HEAD).
    static func completed(_ body: [UInt8], key: String) throws(ObjectStoreError) -> CompletedUpload {
        let root = S3XML.rootElementName(body)
        if root == "Error" {
            let code = S3XML.errorCode(body)
            if let refusal = MultipartRefusal(code: code) { throw .multipart(refusal) }
            throw .status(200, code: code)
        }
        try expectRoot("CompleteMultipartUploadResult", body)
        guard let etag = S3XML.firstElementText("ETag", in: body) else {
            throw .malformedResponse("CompleteMultipartUploadResult without an ETag")
        }
        let location = S3XML.firstElementText("Location", in: body).flatMap { $0.isEmpty ? nil : $0 }
        return CompletedUpload(key: S3XML.firstElementText("Key", in: body) ?? key, etag: etag, location: location)
    }

    /// Throws unless the root element is `name`.
    private static func expectRoot(_ name: String, _ body: [UInt8]) throws(ObjectStoreError) {
        let root = S3XML.rootElementName(body)
        guard root == name else { throw .malformedResponse("expected <\(name)>, got <\(root ?? "nothing")>") }
    }

    /// `IsTruncated`: `true` or `false`, nothing else; absent counts as false.
    private static func isTruncated(_ body: [UInt8]) throws(ObjectStoreError) -> Bool {
        switch S3XML.firstElementText("IsTruncated", in: body) {
        case nil, "false": return false
        case "true": return true
        case let other?: throw .malformedResponse("IsTruncated is \(other.prefix(16)), not true or false")
        }
    }

    /// The contents of each `<name>...</name>` element in `body`, in order; more than `limit` is an error.
    ///
    /// An element of that name must not nest in itself (S3's `Part` and `Upload` do not); a longer
    /// name with the same start (`PartNumberMarker`, `UploadIdMarker`) is not a match.
    static func elements(_ name: String, in body: [UInt8], limit: Int) throws(ObjectStoreError) -> [[UInt8]] {
        let open = Array("<\(name)".utf8)
        let close = Array("</\(name)>".utf8)
        var found = [[UInt8]]()
        var cursor = 0
        while let start = S3XML.find(open, in: body, from: cursor) {
            var index = start + open.count
            guard index < body.count else { break }
            guard body[index] == UInt8(ascii: ">") || body[index] == UInt8(ascii: " ") else {
                cursor = index
                continue
            }
            while index < body.count, body[index] != UInt8(ascii: ">") { index += 1 }
            guard index < body.count, let end = S3XML.find(close, in: body, from: index + 1) else {
                throw .malformedResponse("an unterminated <\(name)> element")
            }
            guard found.count < limit else { throw .malformedResponse("more than \(limit) <\(name)> elements") }
            found.append(Array(body[(index + 1)..<end]))
            cursor = end + close.count
        }
        return found
    }
}
