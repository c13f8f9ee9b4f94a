import Crypto
import Testing

@testable import ObjectStore

/// The bodies of bucket notifications, RGW's topic API and ListObjectsV2, and the composite ETag rule.
@Suite struct NotificationXMLTests {
    @Test func aConfigurationRoundTripsAndReadsRGWsAnswer() throws {
        let rules = [
            NotificationRule(
                id: "uploads", topicARN: "arn:aws:sns:default::t1", events: ["s3:ObjectCreated:*"], prefix: "delete/"),
            NotificationRule(
                id: "b&<", topicARN: "arn:aws:sns:default::t2",
                events: ["s3:ObjectCreated:Put", "s3:ObjectCreated:Post"], suffix: ".jpg"),
            NotificationRule(id: "all", topicARN: "arn:aws:sns:default::t3", events: ["s3:ObjectCreated:*"]),
        ]
        let body = NotificationXML.configuration(rules)
        #expect(String(decoding: body, as: UTF8.self).contains("<Id>b&amp;&lt;</Id>"))
        #expect(try NotificationXML.rules(body) == rules)
        // What RGW 16.2.15 answered to GET ?notification (captured): no namespace, Event after Filter.
        let rgw = """
            <NotificationConfiguration><TopicConfiguration><Id>probe2</Id><Topic>arn:aws:sns:default::probe2</Topic>\
            <Filter><S3Key><FilterRule><Name>prefix</Name><Value>probe/</Value></FilterRule></S3Key></Filter>\
            <Event>s3:ObjectCreated:*</Event></TopicConfiguration></NotificationConfiguration>
            """
        #expect(
            try NotificationXML.rules(Array(rgw.utf8)) == [
                NotificationRule(
                    id: "probe2", topicARN: "arn:aws:sns:default::probe2", events: ["s3:ObjectCreated:*"],
                    prefix: "probe/")
            ])
        #expect(try NotificationXML.rules(Array("<NotificationConfiguration></NotificationConfiguration>".utf8)) == [])
        #expect(throws: ObjectStoreError.self) { try NotificationXML.rules(Array("<Error/>".utf8)) }
    }

    @Test func rgwsTopicAnswersAreRead() throws {
        // Captured from RGW 16.2.15 (CreateTopic, then ListTopics).
        let created = """
            <CreateTopicResponse xmlns="https://sns.amazonaws.com/doc/2010-03-31/"><CreateTopicResult><TopicArn>arn:aws:sns:default::probe1</TopicArn></CreateTopicResult><ResponseMetadata><RequestId>r</RequestId></ResponseMetadata></CreateTopicResponse>
            """
        #expect(try NotificationXML.createdTopicARN(Array(created.utf8)) == "arn:aws:sns:default::probe1")
        let listed = """
            <ListTopicsResponse xmlns="https://sns.amazonaws.com/doc/2010-03-31/"><ListTopicsResult><Topics><member><User></User><Name>probe1</Name><EndPoint><EndpointAddress>http://127.0.0.1:1/x</EndpointAddress><EndpointArgs>OpaqueData=secret123&amp;persistent=true&amp;push-endpoint=http://127.0.0.1:1/x</EndpointArgs><EndpointTopic>probe1</EndpointTopic><HasStoredSecret>False</HasStoredSecret><Persistent>True</Persistent></EndPoint><TopicArn>arn:aws:sns:default::probe1</TopicArn><OpaqueData>secret123</OpaqueData></member></Topics></ListTopicsResult><ResponseMetadata><RequestId>r</RequestId></ResponseMetadata></ListTopicsResponse>
            """
        #expect(
            try NotificationXML.topics(Array(listed.utf8)) == [
                TopicInfo(
                    name: "probe1", arn: "arn:aws:sns:default::probe1", pushEndpoint: "http://127.0.0.1:1/x",
                    opaqueData: "secret123", persistent: true)
            ])
        #expect(throws: ObjectStoreError.self) { try NotificationXML.createdTopicARN(Array("<Error/>".utf8)) }
    }

    @Test func listingPagesAreReadAndChecked() throws {
        let page = """
            <?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>uploads</Name><Prefix>p/</Prefix><KeyCount>2</KeyCount><MaxKeys>2</MaxKeys><IsTruncated>true</IsTruncated><NextContinuationToken>tok/2</NextContinuationToken>\
            <Contents><Key>p/a&amp;b.jpg</Key><LastModified>2026-12-01T21:34:28.257Z</LastModified><ETag>&quot;b1946ac92492d2347c6235b4d2611184&quot;</ETag><Size>6</Size><StorageClass>STANDARD</StorageClass></Contents>\
            <Contents><Key>p/c.jpg</Key><LastModified>2026-12-01T21:34:29.000Z</LastModified><ETag>"0a-2"</ETag><Size>10</Size></Contents></ListBucketResult>
            """
        let parsed = try ListingXML.page(Array(page.utf8), maxKeys: 2)
        #expect(parsed.nextContinuationToken == "tok/2")
        #expect(parsed.objects.map(\.key) == ["p/a&b.jpg", "p/c.jpg"])
        #expect(parsed.objects.map(\.etag) == ["b1946ac92492d2347c6235b4d2611184", "0a-2"])
        #expect(parsed.objects.map(\.size) == [6, 10])
        #expect(parsed.objects[0].lastModified == 1_796_160_868)
        #expect(throws: ObjectStoreError.self) { try ListingXML.page(Array(page.utf8), maxKeys: 1) }
        let noToken = page.replacingOccurrences(of: "<NextContinuationToken>tok/2</NextContinuationToken>", with: "")
        #expect(throws: ObjectStoreError.self) { try ListingXML.page(Array(noToken.utf8), maxKeys: 2) }
        let last = noToken.replacingOccurrences(of: "<IsTruncated>true", with: "<IsTruncated>false")
        #expect(try ListingXML.page(Array(last.utf8), maxKeys: 2).nextContinuationToken == nil)
        let badSize = last.replacingOccurrences(of: "<Size>10</Size>", with: "<Size>-1</Size>")
        #expect(throws: ObjectStoreError.self) { try ListingXML.page(Array(badSize.utf8), maxKeys: 2) }
        #expect(throws: ObjectStoreError.self) {
            try ListingXML.page(Array("<Error><Code>x</Code></Error>".utf8), maxKeys: 2)
        }
    }

    /// Vectors computed with Python's hashlib: parts of b"a" * 5 MiB and b"b" * 100, each part's ETag the
    /// hex MD5 of its bytes, the object's `hex(md5(md5(a) + md5(b)))-2`.
    @Test func theCompositeETagRule() {
        let parts = [
            "\"\(Hex.encode(MD5.hash(Array(repeating: UInt8(ascii: "a"), count: 5 << 20))))\"",
            Hex.encode(MD5.hash(Array(repeating: UInt8(ascii: "b"), count: 100))),
        ]
        #expect(S3Client.compositeETag(partETags: parts) == "16cafe8d6b8c1c55c3d339c8d69326c6-2")
        #expect(S3Client.compositeETag(partETags: []) == nil)
        #expect(S3Client.compositeETag(partETags: ["not-md5"]) == nil)
        let object = ObjectInfo(size: 1, contentType: nil, etag: "\"16cafe8d6b8c1c55c3d339c8d69326c6-2\"")
        #expect(S3Client.isCompletion(object, ofParts: parts))
        #expect(!S3Client.isCompletion(object, ofParts: Array(parts.reversed())))
    }
}
