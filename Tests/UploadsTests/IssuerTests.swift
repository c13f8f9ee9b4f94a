import Config
import Crypto
import Records
import Testing
import Uploads
import UploadsTestSupport

/// Issuing: keys rendered from the type's templates, the URL signed and returned as a promise whose
/// intent is handed off once through `IntentKeeper` when it is kept (refused when it cannot be stored;
/// none for a HEAD).
@Suite struct IssuerTests {
    @Test("a server-made key of a type: the upload and permanent keys, and the intent of the URL")
    func issueByType() throws {
        let sink = RecordingIntentSink()
        let h = try LifecycleHarness(sink: sink)
        let upload = try h.catalog.checkNew(typeName: "PROFILE", ext: "jpg", chatroomId: nil)
        let pending = try h.issuer.issue(upload, owner: "7", signing: .pathStyle, recordsIntent: true)
        #expect(sink.intents.isEmpty, "nothing stored before the promise is kept")
        let issued = try pending.kept()
        // The random UUID drawn, made time-ordered: the URL's expiry to the millisecond as its time, the
        // count of keys drawn (the first: 0) as its rand_a.
        let drawn = "00000000-0000-4000-8000-000000000001"
        let uuid = try #require(UUIDv7.stamping(drawn, millis: LifecycleHarness.now + 600_000, sequence: 0))
        #expect(issued.key == "delete/profile/7/\(uuid)_\(LifecycleHarness.now).jpg")
        #expect(issued.imageKey == nil)
        #expect(issued.presigned.url.hasPrefix("http://127.0.0.1:9000/uploads/delete/profile/7/"))
        #expect(issued.expiresAtMs == (LifecycleHarness.now / 1000 + 600) * 1000)
        let intent = try #require(sink.intents.first)
        #expect(sink.intents.count == 1)
        #expect(intent.imageKey == issued.key && intent.objectKey == issued.key && intent.ownerId == "7")
        #expect(intent.permanentKey == "profile/7/origin/\(uuid)_\(LifecycleHarness.now).jpg")
        #expect(intent.allowedContentTypes == ["image/jpeg", "image/png"] && intent.expiresAtMs == issued.expiresAtMs)
        #expect(intent.freshKey, "the key holds the UUID just drawn")
        // Its expiry is the UUID's time rounded down to the second (SQLite keeps such rows in expiry order).
        #expect(UUIDv7.leadingBits(ofLastIn: intent.imageKey).map { $0 >> 16 / 1000 * 1000 } == intent.expiresAtMs)
        // The next key drawn counts one more.
        let next = try h.issuer.issue(upload, owner: "7", signing: .pathStyle, recordsIntent: true).kept()
        let bits = try #require(UUIDv7.leadingBits(ofLastIn: next.key))
        #expect(bits & 0xfff == 1 && bits >> 16 == LifecycleHarness.now + 600_000)
        // A HEAD answers no URL: no intent.
        let head = try h.issuer.issue(upload, owner: "7", signing: .pathStyle, recordsIntent: false)
        #expect(head.isKept)
        _ = try head.kept()
        #expect(sink.intents.count == 2)
    }

    @Test("a full intent queue: no URL, for every issuing operation")
    func backlogged() throws {
        let h = try LifecycleHarness(sink: RecordingIntentSink(refusing: true))
        let upload = try h.catalog.checkNew(typeName: "PROFILE", ext: "jpg", chatroomId: nil)
        #expect(throws: UploadError.intentsBacklogged) {
            try h.issuer.issue(upload, owner: "7", signing: .configured, recordsIntent: true).kept()
        }
        let keyed = try #require(
            h.catalog.checkKeyed(
                KeyedRequest(
                    typeName: "IMAGE", contentType: "image/png", imageKey: "0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6a")
            ).upload)
        #expect(throws: UploadError.intentsBacklogged) { try h.issuer.issue(keyed, owner: "7").kept() }
        let object = try h.issuer.plan(
            ObjectRequest(
                filename: "a.png", mediaType: "image/png", typeName: "IMAGE", chatroomId: nil, metadataJSON: nil),
            owner: "7")
        #expect(throws: UploadError.intentsBacklogged) {
            try h.issuer.issueBrowser(object, form: .put, lifetime: 60, owner: "7", recordsIntent: true).kept()
        }
    }

    @Test("a client-chosen key: signed headers, the declared size as the limit; refused once recorded or in use")
    func issueForKey() throws {
        let sink = RecordingIntentSink()
        let h = try LifecycleHarness(sink: sink)
        let key = "0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6a"
        let keyed = try #require(
            h.catalog.checkKeyed(
                KeyedRequest(
                    typeName: "IMAGE", contentType: "image/png", imageKey: key, declared: .init(size: .bytes(99)))
            )
            .upload)
        let issued = try h.issuer.issue(keyed, owner: "7").kept()
        #expect(issued.key == key && issued.imageKey == key)
        #expect(issued.presigned.headers.map(\.name) == ["Content-Length", "Content-Type"])
        #expect(sink.intents.first?.maxBytes == 99 && sink.intents.first?.contentType == "image/png")
        #expect(sink.intents.first?.freshKey == false, "a client-chosen key may have been issued or recorded")
        // Another owner's unexpired stored intent holds the key.
        try h.store.putIntents([try #require(sink.intents.first)])
        #expect(throws: UploadError.keyInUse) { try h.issuer.issue(keyed, owner: "8") }
        _ = try h.issuer.issue(keyed, owner: "7").kept()
        _ = try h.store.insertRecords([
            ImageRecord(
                id: "r1", ownerId: "7", imageKey: key, objectKey: key, type: "IMAGE", contentType: "image/png", size: 1,
                etag: "e", metadataJSON: "{}", createdAtMs: LifecycleHarness.now)
        ])
        #expect(throws: UploadError.keyAlreadyRecorded) { try h.issuer.issue(keyed, owner: "7") }
    }

    @Test("a browser upload's object: the file name's slug in the key, the metadata on its intent")
    func browserUpload() throws {
        var config = PresigndConfig.defaults
        config.types.append(
            UploadTypeConfig(
                name: "FILE", extensions: [], contentTypes: ["video/mp4"],
                keyTemplate: "files/{userId}/{uuid}/{filename}.{ext}",
                maxBytes: 1000))
        let sink = RecordingIntentSink()
        let h = try LifecycleHarness(config: config, sink: sink)
        let object = try h.issuer.plan(
            ObjectRequest(
                filename: "My Holiday.MP4", mediaType: "video/mp4", typeName: "FILE", chatroomId: nil,
                metadataJSON: #"{"a":"b"}"#), owner: "7")
        // A browser upload's lifetime is set after its key: the UUID's time is the time of issue.
        let uuid = try #require(
            UUIDv7.stamping("00000000-0000-4000-8000-000000000001", millis: LifecycleHarness.now, sequence: 0))
        #expect(object.key == "files/7/\(uuid)/my-holiday.mp4")
        guard
            case .post(let post) = try h.issuer.issueBrowser(
                object, form: .post, lifetime: 60, owner: "7", recordsIntent: true
            ).kept()
        else {
            Issue.record("a POST was asked for")
            return
        }
        #expect(post.fields.contains { $0.name == "key" && $0.value == object.key })
        let intent = try #require(sink.intents.first)
        #expect(intent.metadataJSON == #"{"a":"b"}"# && intent.expiresAtMs == LifecycleHarness.now + 60_000)
    }
}
