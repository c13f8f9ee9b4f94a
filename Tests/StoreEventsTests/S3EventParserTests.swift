import Testing

@testable import StoreEvents

/// The S3 event notification format as each store sends it.
@Suite struct S3EventParserTests {
    /// What Ceph RGW 16.2.15 really pushed for a PUT of `probe/a b+c.txt` (6 bytes) to a persistent topic
    /// with `OpaqueData` `tok-abc` (captured on the RGW that scripts/start-s3.sh starts: the headers are in
    /// rgw-16.2.15-put.headers.txt; RGW sends the key as it is, not URL-encoded).
    @Test func rgwsRealPushIsRead() throws {
        let batch = try S3EventParser().parse(try Fixtures.bytes("rgw-16.2.15-put.json"))
        #expect(batch.unusable.isEmpty)
        #expect(
            batch.events == [
                StoreEvent(
                    source: .ceph, eventName: "ObjectCreated:Put", bucket: "uploads", key: "probe/a b+c.txt", size: 6,
                    etag: "b1946ac92492d2347c6235b4d2611184", opaqueData: "tok-abc",
                    eventTime: "2026-12-01T21:34:28.257941Z", sequencer: "643D0F6B9AF5800F")
            ])
        let headers = String(decoding: try Fixtures.bytes("rgw-16.2.15-put.headers.txt"), as: UTF8.self)
        #expect(headers.contains("Content-Type: application/json"))
        #expect(!headers.lowercased().contains("authorization"))
    }

    /// AWS S3's event in the layout of the AWS S3 User Guide ("Event message structure", version 2.1): the
    /// key URL-encoded with `+` for a space, the ETag without quotes, `s3:TestEvent` without records.
    @Test func awsEventsHaveURLEncodedKeys() throws {
        let body = #"""
            {"Records":[{"eventVersion":"2.1","eventSource":"aws:s3","awsRegion":"eu-west-1",
            "eventTime":"2026-12-01T10:00:00.000Z","eventName":"ObjectCreated:CompleteMultipartUpload",
            "userIdentity":{"principalId":"AWS:AIDAEXAMPLE"},"requestParameters":{"sourceIPAddress":"203.0.113.9"},
            "responseElements":{"x-amz-request-id":"R1","x-amz-id-2":"H1"},
            "s3":{"s3SchemaVersion":"1.0","configurationId":"uploads","bucket":{"name":"photos",
            "ownerIdentity":{"principalId":"A1"},"arn":"arn:aws:s3:::photos"},
            "object":{"key":"users/u1/a+b%2Bc%C3%A9.jpg","size":15728640,"eTag":"3858f62230ac3c915f300c664312c11f-3",
            "sequencer":"0055AED6DCD90281E5"}}}]}
            """#
        let batch = try S3EventParser(bucket: "photos").parse(Array(body.utf8))
        #expect(batch.events.count == 1)
        let event = try #require(batch.events.first)
        #expect(event.source == .aws && event.key == "users/u1/a b+cé.jpg" && event.size == 15_728_640)
        #expect(event.etag == "3858f62230ac3c915f300c664312c11f-3" && event.opaqueData == nil)
        #expect(event.eventName == "ObjectCreated:CompleteMultipartUpload" && event.isCreation)
        let test =
            #"{"Service":"Amazon S3","Event":"s3:TestEvent","Time":"2026-12-01T10:00:00.000Z","Bucket":"photos"}"#
        #expect(try S3EventParser().parse(Array(test.utf8)) == EventBatch(events: [], unusable: []))
    }

    /// MinIO's webhook body (minio/minio internal/event/target/webhook.go: `EventName`, `Key` as
    /// bucket/decoded key, `Records` with `minio:s3` records whose keys are URL-encoded by Go's
    /// url.QueryEscape).
    @Test func minioWebhookBodiesAreRead() throws {
        let body = #"""
            {"EventName":"s3:ObjectCreated:Put","Key":"uploads/in/a b.png","Records":[{"eventVersion":"2.0",
            "eventSource":"minio:s3","awsRegion":"","eventTime":"2026-12-01T10:00:00.000Z",
            "eventName":"s3:ObjectCreated:Put","userIdentity":{"principalId":"minio"},
            "s3":{"s3SchemaVersion":"1.0","configurationId":"Config","bucket":{"name":"uploads",
            "ownerIdentity":{"principalId":"minio"},"arn":"arn:aws:s3:::uploads"},
            "object":{"key":"in%2Fa+b.png","size":2048,"eTag":"\"0123456789abcdef0123456789abcdef\"",
            "contentType":"image/png","sequencer":"17D"}}}]}
            """#
        let batch = try S3EventParser().parse(Array(body.utf8))
        let event = try #require(batch.events.first)
        #expect(event.source == .minio && event.key == "in/a b.png" && event.eventName == "ObjectCreated:Put")
        #expect(event.etag == "0123456789abcdef0123456789abcdef" && event.size == 2048)
    }

    /// Records that cannot be used are listed with their reason; the others still come through.
    @Test func unusableRecordsAreNamedWithTheirReason() throws {
        func record(
            source: String = "ceph:s3", name: String = "ObjectCreated:Put", bucket: String = "uploads",
            key: String = "k.jpg", size: String = "1"
        ) -> String {
            #"{"eventSource":"\#(source)","eventName":"\#(name)","s3":{"bucket":{"name":"\#(bucket)"},"object":{"key":"\#(key)","size":\#(size)}}}"#
        }
        let records: [String] = [
            record(), record(name: "ObjectRemoved:Delete"), record(bucket: "other"), record(source: "gcs"),
            record(key: ""), record(size: "-1"), record(size: "\"12\""), record(source: "aws:s3", key: "bad%zz"),
            #"{"eventName":"ObjectCreated:Put"}"#, "17", record(source: "aws:s3", key: "%FF"),
        ]
        let body = #"{"Records":["# + records.joined(separator: ",") + "]}"
        let batch = try S3EventParser(bucket: "uploads").parse(Array(body.utf8))
        #expect(batch.events.map(\.key) == ["k.jpg"])
        #expect(
            batch.unusable == [
                .init(index: 1, reason: "not-a-creation"), .init(index: 2, reason: "wrong-bucket"),
                .init(index: 3, reason: "malformed-record"), .init(index: 4, reason: "malformed-record"),
                .init(index: 5, reason: "malformed-record"), .init(index: 6, reason: "malformed-record"),
                .init(index: 7, reason: "malformed-record"), .init(index: 8, reason: "malformed-record"),
                .init(index: 9, reason: "malformed-record"), .init(index: 10, reason: "malformed-record"),
            ])
    }

    /// Bodies that are not this JSON, or too large, are errors (the endpoint answers 400 or 413).
    @Test func badBodiesAreTypedErrors() throws {
        let parser = S3EventParser(maxBytes: 64, maxRecords: 2)
        for body in ["", "{", "[]", "null", #"{"records":[]}"#, #"{"Records":{}}"#, "{\"Records\":[]} x"] {
            #expect(throws: StoreEventsError.self, "\(body)") { try parser.parse(Array(body.utf8)) }
            do throws(StoreEventsError) {
                _ = try parser.parse(Array(body.utf8))
            } catch {
                guard case .malformed = error else {
                    Issue.record("\(body): \(error)")
                    continue
                }
            }
        }
        #expect(throws: StoreEventsError.tooLarge(bytes: 65, limit: 64)) {
            try parser.parse(Array(repeating: UInt8(ascii: " "), count: 65))
        }
        #expect(throws: StoreEventsError.self) { try parser.parse(Array(#"{"Records":[1,2,3]}"#.utf8)) }
    }
}
