import TestSupport
import Testing

@testable import ObjectStore

/// The multipart calls' retry rules and error mapping, against scripted local servers.
@Suite struct S3ClientMultipartTests {
    /// An HTTP response with an XML body.
    static func xml(_ status: String, _ body: String) -> FakeServer.Reply {
        .respond(
            "HTTP/1.1 \(status)\r\nContent-Type: application/xml\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
    }

    static let initiated = xml(
        "200 OK",
        "<InitiateMultipartUploadResult><Bucket>uploads</Bucket><Key>k</Key><UploadId>2~abc</UploadId>"
            + "</InitiateMultipartUploadResult>")
    static let slowDown = xml("503 Slow Down", "<Error><Code>SlowDown</Code></Error>")
    static let noSuchUpload = xml("404 Not Found", "<Error><Code>NoSuchUpload</Code></Error>")
    static let completed = xml(
        "200 OK",
        "<CompleteMultipartUploadResult><Location>http://h/uploads/k</Location><Key>k</Key>"
            + "<ETag>&quot;66027c6d92d43d01c4f2aa8759629be3-2&quot;</ETag></CompleteMultipartUploadResult>")
    /// Parts whose ETags are the MD5s of "" and "abc": the object's ETag is `66027c6d…-2`.
    static let parts: [(partNumber: Int, etag: String)] = [
        (1, "\"d41d8cd98f00b204e9800998ecf8427e\""), (2, "\"900150983cd24fb0d6963f7d28e17f72\""),
    ]

    /// A HEAD answer with `etag`.
    static func head(etag: String) -> FakeServer.Reply {
        .respond("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nETag: \"\(etag)\"\r\n\r\n")
    }

    @Test("Create is not retried after a broken connection (the upload may exist)")
    func createIsNotRetriedAfterABrokenConnection() throws {
        let server = try FakeServer { _, _ in .close }
        defer { server.stop() }
        let sleeps = SleepRecorder()
        let error = #expect(throws: ObjectStoreError.self) {
            try S3ClientTests.client(server, sleeps: sleeps).createMultipartUpload(key: "k")
        }
        #expect(error?.caseName == "connection", "\(String(describing: error))")
        #expect(server.requests.count == 1)
        #expect(sleeps.recorded.isEmpty)
    }

    @Test("Create is retried after SlowDown (refused without acting) and sends type and metadata")
    func createIsRetriedAfterSlowDown() throws {
        let server = try FakeServer { index, _ in index == 0 ? Self.slowDown : Self.initiated }
        defer { server.stop() }
        let client = try S3ClientTests.client(server, sleeps: SleepRecorder())
        let uploadId = try client.createMultipartUpload(
            key: "big/v.mp4", contentType: "video/mp4", metadata: [("Origin", "uppy")])
        #expect(uploadId == "2~abc")
        #expect(server.requests.count == 2)
        let request = try #require(server.requests.last)
        #expect(request.hasPrefix("POST /uploads/big/v.mp4?uploads= HTTP/1.1\r\n"))
        #expect(request.contains("Content-Type: video/mp4\r\n"))
        #expect(request.contains("x-amz-meta-origin: uppy\r\n"))
    }

    @Test("Complete: 200 with an InternalError body is retried; the answer's ETag keeps its quotes")
    func completeRetriesA200Error() throws {
        let server = try FakeServer { index, _ in
            index == 0 ? Self.xml("200 OK", "\n\n<Error><Code>InternalError</Code></Error>") : Self.completed
        }
        defer { server.stop() }
        let result = try S3ClientTests.client(server, sleeps: SleepRecorder()).completeMultipartUpload(
            key: "k", uploadId: "2~abc", parts: Self.parts)
        #expect(
            result
                == CompletedUpload(
                    key: "k", etag: "\"66027c6d92d43d01c4f2aa8759629be3-2\"", location: "http://h/uploads/k"))
        #expect(server.requests.count == 2)
        let request = try #require(server.requests.first)
        #expect(request.hasPrefix("POST /uploads/k?uploadId=2~abc HTTP/1.1\r\n"))
        // The recorded request is its head; the body is MultipartXMLTests.completeBody.
        #expect(request.contains("Content-Type: application/xml\r\n"))
        #expect(!request.contains("UNSIGNED-PAYLOAD"), "the body is signed with its SHA-256")
    }

    @Test("Complete: NoSuchUpload after a lost answer is success when the object has the parts' ETag")
    func completeConfirmsALostSuccessWithAHead() throws {
        let server = try FakeServer { index, _ in
            [.close, Self.noSuchUpload, Self.head(etag: "66027c6d92d43d01c4f2aa8759629be3-2")][min(index, 2)]
        }
        defer { server.stop() }
        let result = try S3ClientTests.client(server, sleeps: SleepRecorder()).completeMultipartUpload(
            key: "k", uploadId: "2~abc", parts: Self.parts)
        #expect(result.etag == "\"66027c6d92d43d01c4f2aa8759629be3-2\"")
        #expect(result.location == nil)
        #expect(server.requests.map { $0.prefix(4) } == ["POST", "POST", "HEAD"])
    }

    @Test("Complete: NoSuchUpload after a lost answer stays an error when the object is another one")
    func completeDoesNotMistakeAnotherObject() throws {
        let server = try FakeServer { index, _ in
            [.close, Self.noSuchUpload, Self.head(etag: "0123456789abcdef0123456789abcdef-2")][min(index, 2)]
        }
        defer { server.stop() }
        #expect(throws: ObjectStoreError.multipart(.noSuchUpload)) {
            try S3ClientTests.client(server, sleeps: SleepRecorder()).completeMultipartUpload(
                key: "k", uploadId: "2~abc", parts: Self.parts)
        }
    }

    @Test(
        "refusals map to .multipart and are not retried",
        arguments: [
            ("400 Bad Request", "InvalidPartOrder", MultipartRefusal.invalidPartOrder),
            ("400 Bad Request", "InvalidPart", .invalidPart), ("400 Bad Request", "EntityTooSmall", .entityTooSmall),
            ("200 OK", "EntityTooSmall", .entityTooSmall), ("404 Not Found", "NoSuchUpload", .noSuchUpload),
        ])
    func refusals(status: String, code: String, refusal: MultipartRefusal) throws {
        let server = try FakeServer { _, _ in Self.xml(status, "<Error><Code>\(code)</Code></Error>") }
        defer { server.stop() }
        #expect(throws: ObjectStoreError.multipart(refusal)) {
            try S3ClientTests.client(server, sleeps: SleepRecorder()).completeMultipartUpload(
                key: "k", uploadId: "u", parts: Self.parts)
        }
        #expect(server.requests.count == 1)
        #expect(!ObjectStoreError.multipart(refusal).isRetryable)
    }

    @Test("Abort: NoSuchUpload on the first attempt is an error, after a lost answer it is done")
    func abort() throws {
        let first = try FakeServer { _, _ in Self.noSuchUpload }
        defer { first.stop() }
        #expect(throws: ObjectStoreError.multipart(.noSuchUpload)) {
            try S3ClientTests.client(first, sleeps: SleepRecorder()).abortMultipartUpload(key: "k", uploadId: "u")
        }
        let lost = try FakeServer { index, _ in index == 0 ? .close : Self.noSuchUpload }
        defer { lost.stop() }
        try S3ClientTests.client(lost, sleeps: SleepRecorder()).abortMultipartUpload(key: "k", uploadId: "u")
        #expect(lost.requests.count == 2)
        #expect(lost.requests.allSatisfy { $0.hasPrefix("DELETE /uploads/k?uploadId=u HTTP/1.1") })
    }

    @Test("ListParts follows NextPartNumberMarker through every page")
    func listPartsFollowsEveryPage() throws {
        let server = try FakeServer { index, _ in
            let body = MultipartXMLTests.partsBody(
                [(index * 2 + 1, "\"a\""), (index * 2 + 2, "\"b\"")], truncated: index < 2 ? "true" : "false",
                next: index < 2 ? index * 2 + 2 : nil)
            return Self.xml("200 OK", String(decoding: body, as: UTF8.self))
        }
        defer { server.stop() }
        let parts = try S3ClientTests.client(server, sleeps: SleepRecorder()).listParts(
            key: "k", uploadId: "u", pageSize: 2)
        #expect(parts.map(\.partNumber) == [1, 2, 3, 4, 5, 6])
        #expect(server.requests.count == 3)
        #expect(server.requests[1].hasPrefix("GET /uploads/k?max-parts=2&part-number-marker=2&uploadId=u HTTP/1.1"))
    }
}
