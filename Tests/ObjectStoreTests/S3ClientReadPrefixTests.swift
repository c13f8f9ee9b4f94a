import Foundation
import TestSupport
import Testing

@testable import ObjectStore

/// `S3Client.readPrefix` against scripted servers: the request it sends, and answers RGW never gives
/// (a store that ignores `Range`, a `Content-Range` that does not match its body).
@Suite struct S3ClientReadPrefixTests {
    @Test("one signed GET with Range: bytes=0-(maxBytes-1); the 206's Content-Range total is the size")
    func sendsTheRangeAndReadsTheTotal() throws {
        let server = try FakeServer { _, _ in
            .respond(
                "HTTP/1.1 206 Partial Content\r\nContent-Length: 4\r\nContent-Range: bytes 0-3/9000\r\n"
                    + "ETag: \"e9\"\r\nContent-Type: image/png\r\n\r\nGIF8")
        }
        defer { server.stop() }
        let prefix = try #require(
            try S3ClientTests.client(server, sleeps: SleepRecorder()).readPrefix(key: "a/b.png", maxBytes: 4))
        #expect(prefix.bytes == Array("GIF8".utf8))
        #expect(prefix.info == ObjectInfo(size: 9000, contentType: "image/png", etag: "e9"))
        #expect(server.requests.count == 1)
        let request = try #require(server.requests.first)
        #expect(request.hasPrefix("GET /uploads/a/b.png HTTP/1.1\r\n"))
        #expect(request.contains("\r\nRange: bytes=0-3\r\n"))
        // The range is signed with the request.
        #expect(request.contains("SignedHeaders=host;range;x-amz-content-sha256;x-amz-date"), "\(request)")
    }

    @Test("a store that ignores Range (200, the whole object) is cut to maxBytes")
    func ignoredRangeIsCut() throws {
        let server = try FakeServer { _, _ in
            .respond(
                "HTTP/1.1 200 OK\r\nContent-Length: 10\r\nETag: \"e\"\r\nContent-Type: image/gif\r\n\r\n0123456789")
        }
        defer { server.stop() }
        let prefix = try #require(
            try S3ClientTests.client(server, sleeps: SleepRecorder()).readPrefix(key: "k", maxBytes: 4))
        #expect(prefix.bytes == Array("0123".utf8))
        #expect(prefix.info.size == 10)
        #expect(!prefix.isWholeObject)
    }

    /// 206 answers whose Content-Range disagrees with the request or the body.
    static let mismatchedRanges = [
        "bytes 1-4/10",  // does not start at 0
        "bytes 0-5/10",  // more bytes than the body has
        "bytes 0-3/3",  // past the total
        "bytes */10",  // not a range
        "items 0-3/10",  // not bytes
    ]

    @Test("a 206 whose Content-Range does not match is a malformed response", arguments: mismatchedRanges)
    func mismatchedRangeIsMalformed(_ contentRange: String) throws {
        let server = try FakeServer { _, _ in
            .respond(
                "HTTP/1.1 206 Partial Content\r\nContent-Length: 4\r\nContent-Range: \(contentRange)\r\nETag: \"e\"\r\n\r\nabcd"
            )
        }
        defer { server.stop() }
        #expect(
            throws: ObjectStoreError.malformedResponse(
                "a ranged GET answered 206 with a Content-Range that does not match")
        ) {
            try S3ClientTests.client(server, sleeps: SleepRecorder()).readPrefix(key: "k", maxBytes: 4)
        }
    }

    @Test("404 is nil; 416 (an empty object) is read back with a HEAD")
    func missingAndEmpty() throws {
        let missing = try FakeServer { _, _ in
            .respond("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
        }
        defer { missing.stop() }
        #expect(try S3ClientTests.client(missing, sleeps: SleepRecorder()).readPrefix(key: "k", maxBytes: 8) == nil)

        let empty = try FakeServer { index, _ in
            index == 0
                ? .respond("HTTP/1.1 416 Requested Range Not Satisfiable\r\nContent-Length: 0\r\n\r\n")
                : .respond("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nETag: \"d41d\"\r\nContent-Type: image/jpeg\r\n\r\n")
        }
        defer { empty.stop() }
        let prefix = try #require(
            try S3ClientTests.client(empty, sleeps: SleepRecorder()).readPrefix(key: "k", maxBytes: 8))
        #expect(prefix == ObjectPrefix(bytes: [], info: ObjectInfo(size: 0, contentType: "image/jpeg", etag: "d41d")))
        #expect(empty.requests.map { String($0.prefix(5)) } == ["GET /", "HEAD "])
    }
}
