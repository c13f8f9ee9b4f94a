import HTTPClient
import Testing

@testable import ObjectStore

/// The S3 client's pure helpers: ETag unquoting, copy-source encoding, object info from headers.
@Suite struct S3ClientHelpersTests {
    /// (raw ETag header, unquoted): RFC 9110 section 8.8.3 entity-tag syntax.
    static let etags: [(String, String)] = [
        ("\"9b2cf535f27731c974343645a3985328\"", "9b2cf535f27731c974343645a3985328"),
        ("W/\"weak\"", "weak"),
        ("\"d41d8cd98f00b204e9800998ecf8427e-2\"", "d41d8cd98f00b204e9800998ecf8427e-2"),
        ("bare", "bare"),
    ]

    @Test(arguments: 0..<etags.count)
    func unquotesETags(_ index: Int) {
        #expect(S3Client.unquote(Self.etags[index].0) == Self.etags[index].1)
    }

    /// (key, encoded with slashes kept): SigV4's URI-encoding rule (AWS SigV4 documentation,
    /// "Create a canonical request": unreserved A-Z a-z 0-9 - . _ ~ kept, space as %20, upper-case hex).
    static let encodings: [(String, String)] = [
        ("a b/c+d", "a%20b/c%2Bd"),
        ("100%~x", "100%25~x"),
        ("dir//file", "dir//file"),
        ("사진.jpg", "%EC%82%AC%EC%A7%84.jpg"),
        ("a=b&c", "a%3Db%26c"),
    ]

    @Test(arguments: 0..<encodings.count)
    func encodesCopySources(_ index: Int) {
        var output = [UInt8]()
        S3Client.appendURIEncoded(Self.encodings[index].0, keepingSlash: true, to: &output)
        #expect(String(decoding: output, as: UTF8.self) == Self.encodings[index].1)
    }

    @Test func objectInfoPrefersTheContentRangeTotal() throws {
        let ranged = HTTPResponse(
            status: 206,
            headers: [
                ("Content-Length", "10"), ("Content-Range", "bytes 0-9/1234"), ("ETag", "\"e\""),
                ("Content-Type", "image/png"),
            ],
            body: [])
        #expect(try S3Client.objectInfo(from: ranged) == ObjectInfo(size: 1234, contentType: "image/png", etag: "e"))
        let whole = HTTPResponse(status: 200, headers: [("content-length", "7"), ("etag", "\"f\"")], body: [])
        #expect(try S3Client.objectInfo(from: whole) == ObjectInfo(size: 7, contentType: nil, etag: "f"))
        let error = #expect(throws: ObjectStoreError.self) {
            try S3Client.objectInfo(from: HTTPResponse(status: 200, headers: [("ETag", "\"x\"")], body: []))
        }
        guard case .malformedResponse? = error else {
            Issue.record("expected a malformed response, got \(String(describing: error))")
            return
        }
    }
}
