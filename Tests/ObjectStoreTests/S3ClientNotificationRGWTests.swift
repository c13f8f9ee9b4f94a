import Crypto
import Foundation
import ObjectStoreTestSupport
import SigV4
import StoreEvents
import TestSupport
import Testing

@testable import ObjectStore

/// ListObjectsV2, the composite multipart ETag, RGW's topic API and bucket notifications against the real
/// Ceph RGW 16.2 of scripts/start-s3.sh, and what RGW really pushes to a persistent topic's endpoint.
@Suite(.enabled(if: !RGWEnvironment.skipped, "PRESIGN_SKIP_S3=1"))
struct S3ClientNotificationRGWTests {
    /// A client for the RGW.
    static func client() throws -> S3Client {
        let rgw = try RGWEnvironment.current()
        let options = try ObjectStoreOptions(
            endpoint: rgw.parsedEndpoint, bucket: rgw.bucket, requestTimeoutMs: 30_000, maxRetries: 2)
        return S3Client(options: options, signer: try rgw.signer(), now: wallClockSeconds, sleep: { _ in })
    }

    /// PUTs `bytes` to `key` through a presigned URL, unsigned, as a phone does.
    static func putThroughPresignedURL(_ key: String, _ bytes: [UInt8], with s3: S3Client) throws {
        let rgw = try RGWEnvironment.current()
        let url = try rgw.signer().presign(
            PresignRequest(method: "PUT", bucket: rgw.bucket, key: key, expires: 300), now: wallClockSeconds())
        let response = try S3ClientMultipartRGWTests.send("PUT", url.url, body: bytes, with: s3)
        try #require(response.status == 200, "presigned PUT: HTTP \(response.status)")
    }

    @Test func listObjectsPagesThroughAPrefix() throws {
        let s3 = try Self.client()
        let prefix = uniquePrefix("list")
        let keys = ["a.jpg", "b c.jpg", "d/e.jpg", "é.jpg", "z&<>.jpg"].map { prefix + $0 }
        var etags: [String: String] = [:]
        for (index, key) in keys.enumerated() {
            etags[key] = try s3.put(key: key, bytes: Array(repeating: UInt8(index), count: index + 1)).etag
        }
        _ = try s3.put(key: prefix.dropLast() + "-outside.jpg", bytes: [1])
        var listed: [ObjectListPage.Object] = []
        var token: String?
        var pages = 0
        repeat {
            let page = try s3.listObjects(prefix: prefix, continuationToken: token, maxKeys: 2)
            #expect(page.objects.count <= 2)
            listed += page.objects
            token = page.nextContinuationToken
            pages += 1
        } while token != nil && pages < 10
        #expect(pages == 3)
        #expect(listed.map(\.key) == keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        for object in listed {
            #expect(object.etag == etags[object.key])
            #expect(object.size == Int64(keys.firstIndex(of: object.key)! + 1))
            #expect(abs(object.lastModified - wallClockSeconds()) < 600)
        }
        #expect(try s3.listObjects(prefix: uniquePrefix("empty")).objects.isEmpty)
        for key in keys { try s3.delete(key: key) }
        try s3.delete(key: prefix.dropLast() + "-outside.jpg")
    }

    @Test func aCompletedUploadsHeadHasTheCompositeETagOfItsParts() throws {
        let s3 = try Self.client()
        let key = uniquePrefix("composite") + "photo.jpg"
        let pieces = [
            S3ClientMultipartRGWTests.bytes(5 << 20, seed: 4), S3ClientMultipartRGWTests.bytes(1234, seed: 5),
        ]
        let uploadId = try s3.createMultipartUpload(key: key, contentType: "image/jpeg")
        var etags: [String] = []
        for (index, piece) in pieces.enumerated() {
            etags.append(
                try S3ClientMultipartRGWTests.uploadPart(
                    piece, number: index + 1, key: key, uploadId: uploadId, with: s3))
        }
        _ = try s3.completeMultipartUpload(key: key, uploadId: uploadId, parts: [(1, etags[0]), (2, etags[1])])
        // What a retried completion sees after the first one completed and its answer was lost.
        #expect(throws: ObjectStoreError.multipart(.noSuchUpload)) { try s3.listParts(key: key, uploadId: uploadId) }
        let head = try #require(try s3.head(key: key))
        // The rule, computed here from the bytes: hex(md5(md5(part 1) || md5(part 2)))-2.
        let expected = Hex.encode(MD5.hash(pieces.flatMap { MD5.hash($0) })) + "-2"
        #expect(head.etag == expected)
        #expect(S3Client.compositeETag(partETags: etags) == expected)
        #expect(S3Client.isCompletion(head, ofParts: etags))
        #expect(!S3Client.isCompletion(head, ofParts: etags.reversed()))
        #expect(!S3Client.isCompletion(head, ofParts: [etags[0]]))
        try s3.delete(key: key)
    }

    @Test func topicsAreCreatedListedAndDeleted() throws {
        let s3 = try Self.client()
        let name = "presignd-test-\(UUID().uuidString.lowercased())"
        let arn = try s3.createTopic(
            name: name, pushEndpoint: "http://127.0.0.1:9/events", persistent: true, opaqueData: "secret one")
        #expect(arn.hasPrefix("arn:aws:sns:") && arn.hasSuffix(":" + name))
        let topic = try #require(try s3.listTopics().first { $0.arn == arn })
        #expect(
            topic
                == TopicInfo(
                    name: name, arn: arn, pushEndpoint: "http://127.0.0.1:9/events", opaqueData: "secret one",
                    persistent: true))
        // Creating it again updates it in place.
        #expect(
            try s3.createTopic(name: name, pushEndpoint: "http://127.0.0.1:10/e", persistent: false, opaqueData: nil)
                == arn)
        let updated = try #require(try s3.listTopics().first { $0.arn == arn })
        #expect(updated.pushEndpoint == "http://127.0.0.1:10/e" && !updated.persistent)
        try s3.deleteTopic(arn: arn)
        #expect(try s3.listTopics().contains { $0.arn == arn } == false)
        try s3.deleteTopic(arn: arn)
        // A wrong secret is refused by RGW's signature check, as every call.
        let rgw = try RGWEnvironment.current()
        let wrong = S3Client(
            options: s3.options, signer: try rgw.signer(secret: "not-the-secret"), now: wallClockSeconds,
            sleep: { _ in })
        #expect(throws: ObjectStoreError.self) { try wrong.listTopics() }
    }

    /// A persistent topic pushing to a loopback listener, a bucket notification on a prefix, PUTs through
    /// presigned URLs: the event arrives with the key, size, ETag and opaque data; an endpoint answering
    /// 500, or down, gets the same event again later.
    @Test(.timeLimit(.minutes(5)))
    func persistentTopicsDeliverUntilTheEndpointTakesThem() throws {
        let s3 = try Self.client()
        let token = "opaque-\(UUID().uuidString.lowercased())"
        // The first delivery is refused with 500; every later one taken.
        let listener = try EventListener { index in index == 0 ? 500 : 200 }
        defer { listener.stop() }
        let name = "presignd-test-\(UUID().uuidString.lowercased())"
        let arn = try s3.createTopic(name: name, pushEndpoint: listener.url, persistent: true, opaqueData: token)
        defer { try? s3.deleteTopic(arn: arn) }
        let prefix = uniquePrefix("events")
        let rule = NotificationRule(id: name, topicARN: arn, events: ["s3:ObjectCreated:*"], prefix: prefix)
        try s3.putBucketNotification([rule])
        defer { try? s3.deleteBucketNotification(id: name) }
        let stored = try s3.bucketNotification().first { $0.id == name }
        #expect(stored == rule)

        // A key outside the prefix sends nothing; the one inside does.
        try Self.putThroughPresignedURL(prefix.dropLast() + "-outside.jpg", [1, 2], with: s3)
        let key = prefix + "a b+c.jpg"
        let bytes = Array(repeating: UInt8(7), count: 1234)
        try Self.putThroughPresignedURL(key, bytes, with: s3)
        let md5 = Hex.encode(MD5.hash(bytes))
        // `#require`: with no delivery the checks below would index an empty list and stop the whole run.
        try #require(
            eventuallyBlocking(within: 120, pollMs: 100) { listener.deliveries.contains { $0.status == 200 } },
            "no delivery was taken")
        let deliveries = listener.deliveries
        #expect(deliveries.first?.status == 500)
        #expect(deliveries.count >= 2)
        for delivery in deliveries.prefix(2) {
            #expect(delivery.requestLine == "POST /events HTTP/1.1")
            #expect(delivery.headers.first { $0.name.lowercased() == "content-type" }?.value == "application/json")
            let root = try #require(try JSONSerialization.jsonObject(with: Data(delivery.body)) as? [String: Any])
            let records = try #require(root["Records"] as? [[String: Any]])
            #expect(records.count == 1)
            let record = records[0]
            let object = try #require((record["s3"] as? [String: Any])?["object"] as? [String: Any])
            #expect(record["eventSource"] as? String == "ceph:s3")
            #expect((record["eventName"] as? String)?.hasPrefix("ObjectCreated:") == true)
            #expect(record["opaqueData"] as? String == token)
            #expect(object["key"] as? String == key, "RGW 16.2 sends the key as it is")
            #expect(object["size"] as? Int == 1234)
            #expect(object["eTag"] as? String == md5)
        }
        // The redelivery is the same event.
        #expect(deliveries[0].body == deliveries[1].body)
        // The pure core reads what RGW really sent, and only with the topic's secret.
        let rgw = try RGWEnvironment.current()
        let parser = S3EventParser(bucket: rgw.bucket)
        let batch = try PushAuthenticator(secret: Secret(token), parser: parser).rgwPush(body: deliveries[1].body)
        #expect(batch.unusable.isEmpty)
        #expect(batch.events.map(\.key) == [key] && batch.events.first?.size == 1234 && batch.events.first?.etag == md5)
        #expect(throws: StoreEventsError.self) {
            try PushAuthenticator(secret: Secret(token + "x"), parser: parser).rgwPush(body: deliveries[1].body)
        }

        // The endpoint down: the event waits in RGW's queue and comes when it is back.
        listener.stop()
        let second = prefix + "second.jpg"
        try Self.putThroughPresignedURL(second, [9, 9, 9], with: s3)
        usleep(3_000_000)  // RGW's first attempt goes to a closed port (about 50 ms after the PUT, measured)
        try listener.start()
        let found = eventuallyBlocking(within: 120, pollMs: 100) {
            listener.deliveries.contains {
                String(decoding: $0.body, as: UTF8.self).contains(second) && $0.status == 200
            }
        }
        #expect(found, "the event of \(second) was not delivered after the endpoint came back")
        for key in [key, second, prefix.dropLast() + "-outside.jpg"] { try s3.delete(key: key) }
        #expect(!listener.deliveries.contains { String(decoding: $0.body, as: UTF8.self).contains("-outside.jpg") })
    }
}
