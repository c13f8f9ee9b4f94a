import Foundation
import ObjectStoreTestSupport
import Testing

@testable import ObjectStore

/// `S3Client.readPrefix` (the content check's one ranged GET) against the real RGW: the `Range` header,
/// the 206 and its `Content-Range`, objects shorter than the range, an empty object and a missing one.
@Suite(.enabled(if: !RGWEnvironment.skipped, "PRESIGN_SKIP_S3=1"))
struct S3ClientReadPrefixRGWTests {
    @Test("a long object: exactly the first maxBytes bytes, with the whole object's size, type and ETag (206)")
    func longObject() throws {
        let client = try S3ClientRGWTests.client()
        let key = uniquePrefix("prefix-long") + "big.bin"
        let body = S3ClientRGWTests.bytes(200_000)
        let stored = try client.put(key: key, bytes: body, contentType: "image/png")
        let prefix = try #require(try client.readPrefix(key: key, maxBytes: 65536))
        #expect(prefix.bytes == Array(body[..<65536]))
        #expect(prefix.info == ObjectInfo(size: 200_000, contentType: "image/png", etag: stored.etag))
        #expect(!prefix.isWholeObject)
        // One byte is a range too.
        let one = try #require(try client.readPrefix(key: key, maxBytes: 1))
        #expect(one.bytes == [body[0]])
        #expect(one.info.size == 200_000)
        try client.delete(key: key)
    }

    @Test("an object shorter than the range comes whole, with its own size", arguments: [1, 99, 65535, 65536])
    func shortObject(_ count: Int) throws {
        let client = try S3ClientRGWTests.client()
        let key = uniquePrefix("prefix-short") + "small.bin"
        let body = S3ClientRGWTests.bytes(count)
        let stored = try client.put(key: key, bytes: body, contentType: "image/jpeg")
        let prefix = try #require(try client.readPrefix(key: key, maxBytes: 65536))
        #expect(prefix.bytes == body)
        #expect(prefix.info == ObjectInfo(size: Int64(count), contentType: "image/jpeg", etag: stored.etag))
        #expect(prefix.isWholeObject)
        try client.delete(key: key)
    }

    @Test("an empty object has no byte 0 (416): its prefix is empty, its HEAD gives the rest")
    func emptyObject() throws {
        let client = try S3ClientRGWTests.client()
        let key = uniquePrefix("prefix-empty") + "empty.bin"
        let stored = try client.put(key: key, bytes: [], contentType: "image/jpeg")
        let prefix = try #require(try client.readPrefix(key: key, maxBytes: 65536))
        #expect(prefix.bytes.isEmpty)
        #expect(prefix.info == ObjectInfo(size: 0, contentType: "image/jpeg", etag: stored.etag))
        #expect(prefix.isWholeObject)
        try client.delete(key: key)
    }

    @Test("a missing object is nil, not an error")
    func missingObject() throws {
        let client = try S3ClientRGWTests.client()
        #expect(try client.readPrefix(key: uniquePrefix("prefix-missing") + "nothing.jpg", maxBytes: 65536) == nil)
    }

    @Test("a refused signature is an error, not a missing object")
    func refusedSignature() throws {
        let client = try S3ClientRGWTests.client()
        let key = uniquePrefix("prefix-refused") + "a.bin"
        try client.put(key: key, bytes: [1, 2, 3], contentType: "image/jpeg")
        let wrong = try S3ClientRGWTests.client(secret: "not-the-secret-key-of-this-gateway00000")
        #expect(throws: ObjectStoreError.status(403, code: "SignatureDoesNotMatch")) {
            try wrong.readPrefix(key: key, maxBytes: 65536)
        }
        try client.delete(key: key)
    }
}
