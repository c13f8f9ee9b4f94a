import Testing

@testable import ObjectStore

/// The multipart XML reader and writer: S3's documented answers, and refusals of malformed ones.
@Suite struct MultipartXMLTests {
    /// A ListPartsResult with `parts` (number, ETag) and the given truncation.
    static func partsBody(_ parts: [(Int, String)], truncated: String? = nil, next: Int? = nil) -> [UInt8] {
        var text =
            #"<?xml version="1.0" encoding="UTF-8"?><ListPartsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">"#
        text += "<Bucket>uploads</Bucket><Key>a</Key><UploadId>u</UploadId><PartNumberMarker>0</PartNumberMarker>"
        if let next { text += "<NextPartNumberMarker>\(next)</NextPartNumberMarker>" }
        if let truncated { text += "<IsTruncated>\(truncated)</IsTruncated>" }
        for (number, etag) in parts {
            text += "<Part><PartNumber>\(number)</PartNumber><LastModified>2026-12-01T10:39:39.123Z</LastModified>"
            text += "<ETag>\(etag)</ETag><Size>5242880</Size></Part>"
        }
        return Array((text + "</ListPartsResult>").utf8)
    }

    @Test func aPageOfPartsKeepsTheQuotedETags() throws {
        let page = try MultipartXML.partsPage(
            Self.partsBody([(1, "&quot;aa&quot;"), (2, "&#34;bb&#34;")], truncated: "true", next: 2), maxParts: 2,
            after: 0)
        #expect(
            page.parts == [
                UploadedPart(partNumber: 1, etag: "\"aa\"", size: 5_242_880, lastModified: 1_796_121_579),
                UploadedPart(partNumber: 2, etag: "\"bb\"", size: 5_242_880, lastModified: 1_796_121_579),
            ])
        #expect(page.nextPartNumberMarker == 2)
        let last = try MultipartXML.partsPage(
            Self.partsBody([(3, "\"cc\"")], truncated: "false"), maxParts: 2, after: 2)
        #expect(last.nextPartNumberMarker == nil)
    }

    @Test("malformed ListParts pages are refused, never looped on")
    func malformedPartsPages() {
        let bad: [(String, [UInt8], Int)] = [
            ("wrong root", Array("<ListBucketResult></ListBucketResult>".utf8), 0),
            ("marker does not advance", Self.partsBody([(1, "\"a\"")], truncated: "true", next: 0), 0),
            ("truncated without a marker", Self.partsBody([(1, "\"a\"")], truncated: "true"), 0),
            ("IsTruncated neither true nor false", Self.partsBody([(1, "\"a\"")], truncated: "yes"), 0),
            ("descending part numbers", Self.partsBody([(2, "\"a\""), (1, "\"b\"")]), 0),
            ("a part at or before the marker", Self.partsBody([(5, "\"a\"")]), 5),
            ("part number 0", Self.partsBody([(0, "\"a\"")]), 0),
            ("part number 10001", Self.partsBody([(10_001, "\"a\"")]), 0),
            ("more parts than asked for", Self.partsBody([(1, "\"a\""), (2, "\"b\""), (3, "\"c\"")]), 0),
            ("an empty ETag", Self.partsBody([(1, "")]), 0),
            (
                "a bad LastModified",
                Array(
                    "<ListPartsResult><Part><PartNumber>1</PartNumber><ETag>e</ETag><Size>1</Size><LastModified>yesterday</LastModified></Part></ListPartsResult>"
                        .utf8),
                0
            ),
            ("an unterminated Part", Array("<ListPartsResult><Part><PartNumber>1</PartNumber>".utf8), 0),
        ]
        for (name, body, marker) in bad {
            let error = #expect(throws: ObjectStoreError.self, "\(name)") {
                try MultipartXML.partsPage(body, maxParts: 2, after: marker)
            }
            #expect(error?.caseName == "malformedResponse", "\(name): \(String(describing: error))")
        }
    }

    @Test func uploadsPages() throws {
        let body = Array(
            ("<ListMultipartUploadsResult><Bucket>b</Bucket><KeyMarker></KeyMarker><UploadIdMarker></UploadIdMarker>"
                + "<NextKeyMarker>k&amp;2</NextKeyMarker><NextUploadIdMarker>u2</NextUploadIdMarker>"
                + "<IsTruncated>true</IsTruncated>"
                + "<Upload><Key>k1</Key><UploadId>u1</UploadId><Initiator><ID>x</ID></Initiator>"
                + "<Initiated>1970-01-02T00:00:00Z</Initiated></Upload>"
                + "<Upload><Key>k&amp;2</Key><UploadId>u2</UploadId><Initiated>2000-02-29T12:00:01.5Z</Initiated></Upload>"
                + "</ListMultipartUploadsResult>").utf8)
        let page = try MultipartXML.uploadsPage(body, maxUploads: 2)
        #expect(
            page.uploads == [
                .init(key: "k1", uploadId: "u1", initiated: 86_400),
                .init(key: "k&2", uploadId: "u2", initiated: 951_825_601),
            ])
        #expect(page.nextKeyMarker == "k&2" && page.nextUploadIdMarker == "u2" && page.isTruncated)
        let error = #expect(throws: ObjectStoreError.self) { try MultipartXML.uploadsPage(body, maxUploads: 1) }
        #expect(error?.caseName == "malformedResponse", "\(String(describing: error))")
    }

    @Test("the Complete body escapes ETags and keeps the given order")
    func completeBody() {
        let body = String(decoding: MultipartXML.completeBody([(2, "\"b&<\""), (1, "a'")]), as: UTF8.self)
        #expect(
            body == #"<CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/">"#
                + "<Part><PartNumber>2</PartNumber><ETag>&quot;b&amp;&lt;&quot;</ETag></Part>"
                + "<Part><PartNumber>1</PartNumber><ETag>a&apos;</ETag></Part></CompleteMultipartUpload>")
    }

    @Test("a multipart ETag is the MD5 of the parts' MD5s and the count")
    func multipartETag() {
        // Two parts whose ETags are the MD5 of "" and of "abc" (RFC 1321 test suite); the result
        // was computed with Python: md5(bytes.fromhex(a) + bytes.fromhex(b)).hexdigest() + "-2".
        let empty = "\"d41d8cd98f00b204e9800998ecf8427e\""
        let abc = "900150983cd24fb0d6963f7d28e17f72"
        #expect(S3Client.multipartETag([empty, abc]) == "66027c6d92d43d01c4f2aa8759629be3-2")
        #expect(S3Client.multipartETag(["\"not-an-md5\""]) == nil)
    }
}
