import Config
import Crypto
import HTTP1
import HTTPServer
import ImageProbe
import ObjectStore
import Records
import RecordsTestSupport
import SigV4
import Synchronization
import TestSupport
import Testing
import Uploads
import UploadsTestSupport

@testable import App

/// `POST /images` and `GET /images/{id}` run in process, as the router would run them: the confirm
/// handler against an in-memory object store and the in-memory record store, with no sockets, RGW or
/// database (the end-to-end flows against RGW are in ImagesFlowTests).
@Suite("Images service in process")
struct ImagesServiceInProcessTests {
    static let now: Int64 = 1_795_961_227_768
    static let imageKey = "0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6a"
    static let recordId = "7d444840-9dc0-11d1-b245-5ffdce74fad2"

    /// The service and what stands behind it; shuts its threads down when released.
    final class Harness {
        let store = InMemoryRecordStore()
        let intents: IntentWriter
        let committer: GroupCommitter
        let storage = InMemoryObjectStorage()
        let images: ImagesService
        let confirmer: Confirmer

        /// A harness for `config` (the built-in defaults unless given).
        init(config: PresigndConfig = .defaults) throws {
            intents = IntentWriter(store: store, batchSize: 16, onError: { _ in })
            committer = GroupCommitter(store: store, maxBatch: 16)
            let env = UploadEnvironment(nowMillis: { ImagesServiceInProcessTests.now }, newUUID: { recordId })
            let signer = RotatingPresigner(
                try Presigner(
                    credentials: Credentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: Secret("test-secret")),
                    region: "us-east-1", endpoint: Endpoint(parsing: "http://127.0.0.1:9000"), addressing: .path))
            let catalog = try UploadCatalog(config.types)
            let keeper = IntentKeeper(writer: intents)
            confirmer = Confirmer(
                catalog: catalog, ownership: ImageKeyOwnership(store: store, intents: keeper, nowMillis: env.nowMillis),
                intents: keeper, storage: storage, committer: committer, store: store, env: env, events: { _ in })
            images = ImagesService(
                config: config, confirmer: confirmer,
                records: UploadRecords(
                    store: store, storage: storage, readSigner: signer, bucket: config.s3.bucket,
                    readUrlExpires: config.presign.readUrlExpiresSeconds, cdnBaseUrl: config.presign.cdnBaseUrl,
                    env: env),
                catalog: catalog,
                gate: Gate(callers: DevelopmentCallerResolver(header: "X-User-Id", defaultUserId: "1")))
        }

        deinit {
            committer.shutdown()
            intents.shutdown()
        }

        /// Stores the intent of an issued URL for `imageKey` (`objectKey` the upload key), as its answer did.
        func issue(
            owner: String = "u1", objectKey: String = imageKey, permanentKey: String? = nil,
            contentTypes: [String] = ["image/jpeg", "image/png"], maxBytes: Int64 = 1000, type: String = "PROFILE"
        ) throws {
            try store.putIntents([
                UploadIntent(
                    ownerId: owner, imageKey: imageKey, objectKey: objectKey, permanentKey: permanentKey,
                    type: type, contentType: nil, allowedContentTypes: contentTypes, maxBytes: maxBytes,
                    createdAtMs: now, expiresAtMs: now + 600_000)
            ])
        }

        /// Answers `method path` with `body` as the router would: the route's handler, then its worker part.
        func send(_ method: HTTPMethod, _ path: String, user: String = "u1", body: String = "") -> Response {
            var head = "\(method.name) \(path) HTTP/1.1\r\nHost: presignd\r\nX-User-Id: \(user)\r\n"
            if !body.isEmpty { head += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
            guard case .complete(let parsed, _) = RequestParser.parseHead(Array((head + "\r\n").utf8)) else {
                Issue.record("test request does not parse")
                return Response(status: 0)
            }
            var route = images.routes().first { $0.method == method && $0.template == path }
            var parameters: [(name: String, value: String)] = []
            if route == nil, path.hasPrefix("/images/") {
                route = images.routes().first { $0.method == method && $0.template == "/images/{id}" }
                parameters = [("id", String(path.dropFirst("/images/".count)))]
            }
            guard let route else {
                Issue.record("no route for \(method) \(path)")
                return Response(status: 0)
            }
            let request = Request(
                head: parsed, body: Array(body.utf8), pathParameters: parameters, requestId: "test",
                peer: "127.0.0.1:1")
            switch route.handler(request) {
            case .respond(let response): return response
            case .blocking(let work): return work()
            case .deferred, .blockingDeferred: preconditionFailure("these routes answer inline or on a worker")
            }
        }

        /// `POST /images` for the test's image key.
        func confirm(user: String = "u1") -> Response {
            send(.POST, "/images", user: user, body: #"{"imageKey":"\#(imageKey)"}"#)
        }
    }

    /// The body as text.
    static func text(_ r: Response) -> String { String(decoding: r.body, as: UTF8.self) }

    /// A 4x3 image of `format`, padded after its end to `size` bytes when given.
    static func image(_ format: TestImages.Format = .jpeg, size: Int? = nil) -> [UInt8] {
        let bare = TestImages.image(format, width: 4, height: 3)
        return TestImages.image(
            format, width: 4, height: 3, tail: [UInt8](repeating: 0x20, count: max(0, (size ?? 0) - bare.count)))
    }

    /// The ranged GET the content check makes of `key`.
    static func read(_ key: String) -> String { "GET \(key) 0-65535" }

    @Test("an uploaded object within the limits is recorded (201), then answered again (200)")
    func recordsUpload() throws {
        let h = try Harness()
        try h.issue()
        h.storage.put(Self.imageKey, bytes: Self.image(size: 200), contentType: "image/JPEG; charset=binary")
        let created = h.confirm()
        #expect(created.status == 201)
        #expect(created.userId == "u1")
        let body = Self.text(created)
        #expect(body.contains(#""id":"\#(Self.recordId)""#))
        #expect(body.contains(#""key":"\#(Self.imageKey)""#))
        #expect(body.contains(#""contentType":"image/jpeg""#))
        #expect(body.contains(#""size":200"#))
        #expect(try h.store.record(imageKey: Self.imageKey)?.ownerId == "u1")
        #expect(body.contains(#""detectedType":"image/jpeg","width":4,"height":3"#))
        // With the content check on, one ranged GET stands in for the HEAD.
        #expect(h.storage.calls == [Self.read(Self.imageKey)])

        let again = h.confirm()
        #expect(again.status == 200)
        #expect(Self.text(again) == body)
        #expect(h.send(.GET, "/images/\(Self.recordId)").status == 200)
        #expect(h.send(.GET, "/images/\(Self.recordId)", user: "u2").status == 404)
    }

    @Test("nothing in storage yet: 404 IMAGE_NOT_UPLOADED, nothing recorded")
    func notUploaded() throws {
        let h = try Harness()
        try h.issue()
        let r = h.confirm()
        #expect(r.status == 404)
        #expect(Self.text(r) == #"{"code":"IMAGE_NOT_UPLOADED","message":"the object is not in storage yet"}"#)
        #expect(r.headers.map(\.name) == ["Content-Type", "Cache-Control"])
        #expect(r.userId == "u1")
        #expect(try h.store.record(imageKey: Self.imageKey) == nil)
    }

    @Test("an object over the intent's size limit is deleted: 422 IMAGE_TOO_LARGE")
    func tooLarge() throws {
        let h = try Harness()
        try h.issue(maxBytes: 1000)
        h.storage.put(Self.imageKey, bytes: Self.image(.png, size: 1001), contentType: "image/png")
        let r = h.confirm()
        #expect(r.status == 422)
        #expect(
            Self.text(r).hasPrefix(#"{"code":"IMAGE_TOO_LARGE","message":"the object is 1001 bytes; its URL was"#))
        #expect(h.storage.keys.isEmpty)
        #expect(try h.store.record(imageKey: Self.imageKey) == nil)
    }

    @Test("an object of a content type the intent does not allow is deleted: 422 CONTENT_TYPE_NOT_ALLOWED")
    func wrongContentType() throws {
        let h = try Harness()
        try h.issue(contentTypes: ["image/png"])
        h.storage.put(Self.imageKey, bytes: Self.image(.gif), contentType: "image/gif")
        let r = h.confirm()
        #expect(r.status == 422)
        #expect(Self.text(r).hasPrefix(#"{"code":"CONTENT_TYPE_NOT_ALLOWED","message":"the object was stored with"#))
        #expect(h.storage.calls == [Self.read(Self.imageKey), "DELETE \(Self.imageKey)"])
        #expect(h.storage.keys.isEmpty)
    }

    @Test("a type with a permanent key promotes the object by copy + delete and records the permanent key")
    func promotes() throws {
        let h = try Harness()
        try h.issue(objectKey: "delete/p/u1/a.jpg", permanentKey: "p/u1/origin/a.jpg")
        h.storage.put("delete/p/u1/a.jpg", bytes: Self.image(), contentType: "image/jpeg")
        let r = h.confirm()
        #expect(r.status == 201)
        #expect(
            h.storage.calls == [
                Self.read("delete/p/u1/a.jpg"), "COPY delete/p/u1/a.jpg p/u1/origin/a.jpg", "DELETE delete/p/u1/a.jpg",
            ])
        #expect(h.storage.keys == ["p/u1/origin/a.jpg"])
        #expect(try h.store.record(imageKey: Self.imageKey)?.objectKey == "p/u1/origin/a.jpg")
    }

    @Test("a promotion that copied but was not recorded is finished from the permanent key")
    func resumesPromotion() throws {
        let h = try Harness()
        try h.issue(objectKey: "delete/p/u1/a.jpg", permanentKey: "p/u1/origin/a.jpg")
        h.storage.put("p/u1/origin/a.jpg", bytes: Self.image(), contentType: "image/jpeg")
        #expect(h.confirm().status == 201)
        #expect(h.storage.calls == [Self.read("delete/p/u1/a.jpg"), Self.read("p/u1/origin/a.jpg")])
        #expect(try h.store.record(imageKey: Self.imageKey)?.objectKey == "p/u1/origin/a.jpg")
    }

    @Test("a PNG labelled image/jpeg is recorded as image/png and promoted by a copy that stores image/png")
    func lieIsRecordedAndPromotedAsTheTruth() throws {
        let h = try Harness()
        try h.issue(objectKey: "delete/p/u1/a.jpg", permanentKey: "p/u1/origin/a.jpg")
        h.storage.put("delete/p/u1/a.jpg", bytes: Self.image(.png), contentType: "image/jpeg")
        let r = h.confirm()
        #expect(r.status == 201)
        #expect(Self.text(r).contains(#""contentType":"image/png","detectedType":"image/png","width":4,"height":3"#))
        #expect(
            h.storage.calls == [
                Self.read("delete/p/u1/a.jpg"), "COPY delete/p/u1/a.jpg p/u1/origin/a.jpg image/png",
                "DELETE delete/p/u1/a.jpg",
            ])
        #expect(h.storage.contentType(of: "p/u1/origin/a.jpg") == "image/png")
        let record = try #require(try h.store.record(imageKey: Self.imageKey))
        #expect(record.contentType == "image/png" && record.detectedType == "image/png")
        #expect(record.width == 4 && record.height == 3)
    }

    @Test("a promotion that stored the detected type is finished from the permanent key, whatever the intent listed")
    func resumesAPromotionThatRelabelled() throws {
        let h = try Harness()
        try h.issue(objectKey: "delete/p/u1/a.jpg", permanentKey: "p/u1/origin/a.jpg", contentTypes: ["image/jpeg"])
        h.storage.put("p/u1/origin/a.jpg", bytes: Self.image(.png), contentType: "image/png")
        #expect(h.confirm().status == 201)
        #expect(h.storage.keys == ["p/u1/origin/a.jpg"])
        #expect(try h.store.record(imageKey: Self.imageKey)?.contentType == "image/png")
    }

    @Test("HTML labelled image/jpeg: 422 CONTENT_MISMATCH, deleted, counted, not recorded")
    func refusesHTML() throws {
        let h = try Harness()
        try h.issue()
        h.storage.put(Self.imageKey, bytes: TestImages.html, contentType: "image/jpeg")
        let r = h.confirm()
        #expect(r.status == 422)
        #expect(
            Self.text(r) == #"{"code":"CONTENT_MISMATCH","message":"the object is an HTML document, not an image"}"#)
        #expect(h.storage.calls == [Self.read(Self.imageKey), "DELETE \(Self.imageKey)"])
        #expect(h.storage.keys.isEmpty)
        #expect(h.confirmer.contentRefusals.load(ordering: .relaxed) == 1)
        #expect(try h.store.record(imageKey: Self.imageKey) == nil)
    }

    @Test("a GIF for a type of JPEG and PNG: 422 CONTENT_MISMATCH naming the format and what the type allows")
    func refusesAFormatTheTypeDoesNotAllow() throws {
        let h = try Harness()
        try h.issue()
        h.storage.put(Self.imageKey, bytes: Self.image(.gif), contentType: "image/png")
        let r = h.confirm()
        #expect(r.status == 422)
        #expect(
            Self.text(r)
                == #"{"code":"CONTENT_MISMATCH","message":"the object is a GIF image (image/gif); type PROFILE allows image/jpeg, image/png"}"#
        )
        #expect(h.storage.keys.isEmpty)
    }

    @Test("a type with contentCheck false is confirmed with a HEAD and records no detected type or size")
    func checkOffUsesAHead() throws {
        var config = PresigndConfig.defaults
        let index = try #require(config.types.firstIndex { $0.name == "PROFILE" })
        config.types[index].contentCheck = false
        let h = try Harness(config: config)
        try h.issue()
        h.storage.put(Self.imageKey, bytes: TestImages.html, contentType: "image/jpeg")
        let r = h.confirm()
        #expect(r.status == 201)
        #expect(Self.text(r).contains(#""contentType":"image/jpeg","detectedType":null,"width":null,"height":null"#))
        #expect(h.storage.calls == ["HEAD \(Self.imageKey)"])
    }

    @Test("an intent of a type no longer configured is checked when its types are all images the check knows")
    func removedTypeFallsBackToTheIntentsTypes() throws {
        let h = try Harness()
        try h.issue(type: "GONE")
        h.storage.put(Self.imageKey, bytes: TestImages.svg, contentType: "image/png")
        #expect(h.confirm().status == 422)
        let other = try Harness()
        try other.issue(contentTypes: ["application/pdf"], type: "GONE")
        other.storage.put(Self.imageKey, bytes: Array("%PDF-1.7".utf8), contentType: "application/pdf")
        #expect(other.confirm().status == 201)
        #expect(other.storage.calls == ["HEAD \(Self.imageKey)"])
    }

    /// (storage failure, status, code).
    static let storageFailures: [(ObjectStoreError, Int, String)] = [
        (.timeout("HEAD"), 504, "STORAGE_TIMEOUT"),
        (.status(500, code: "InternalError"), 502, "STORAGE_ERROR"),
        (.connection("refused"), 503, "STORAGE_UNAVAILABLE"),
        (.tls("bad certificate"), 503, "STORAGE_UNAVAILABLE"),
    ]

    @Test("a failing storage call is 502, 503 or 504, without its detail", arguments: 0..<storageFailures.count)
    func storageFailure(_ index: Int) throws {
        let (error, status, code) = Self.storageFailures[index]
        let h = try Harness()
        try h.issue()
        h.storage.failEveryCall(with: error)
        let r = h.confirm()
        #expect(r.status == status)
        #expect(Self.text(r).hasPrefix(#"{"code":"\#(code)","#))
        #expect(!Self.text(r).contains(error.description))
    }

    @Test("who holds the key decides: no intent 404, another user's intent 403, another user's record 409")
    func ownership() throws {
        let h = try Harness()
        #expect(Self.text(h.confirm()).contains("INTENT_NOT_FOUND"))
        try h.issue(owner: "u2")
        let forbidden = h.confirm()
        #expect(forbidden.status == 403)
        #expect(Self.text(forbidden).contains(#""code":"FORBIDDEN""#))
        h.storage.put(Self.imageKey, bytes: Self.image(.png), contentType: "image/png")
        #expect(h.confirm(user: "u2").status == 201)
        let taken = h.confirm()
        #expect(taken.status == 409)
        #expect(Self.text(taken).contains(#""code":"ALREADY_RECORDED""#))
    }

    @Test("a body that is not a JSON object with an image key is refused on the loop (400, 415, 422)")
    func refusesBodies() throws {
        let h = try Harness()
        #expect(h.send(.POST, "/images", body: "{").status == 400)
        #expect(h.send(.POST, "/images", body: "[]").status == 422)
        let missing = h.send(.POST, "/images", body: "{}")
        #expect(
            Self.text(missing)
                == #"{"code":"4220","message":"UNPROCESSABLE_CONTENT","fieldErrors":{"imageKey":"imageKey is required"}}"#
        )
        #expect(h.storage.calls.isEmpty)
    }
}

/// The shared test images are what the content check says they are, and Config's list of checkable
/// types is ImageProbe's formats.
@Suite("Test images and checkable types")
struct TestImagesTests {
    @Test("each built image is detected as its format and size", arguments: TestImages.Format.allCases)
    func detected(_ format: TestImages.Format) {
        for (width, height) in [(1, 1), (640, 480), (16383, 9)] {
            let bytes = TestImages.image(format, width: width, height: height, tail: [1, 2, 3])
            let image = ImageProbe.inspect(bytes).image
            #expect(image?.mimeType == format.mimeType, "\(format)")
            #expect(image?.size == ImageSize(width: width, height: height), "\(format) \(width)x\(height)")
        }
        #expect(ImageProbe.inspect(TestImages.html).refusal == .markup(.html))
        #expect(ImageProbe.inspect(TestImages.svg).refusal == .markup(.svg))
        #expect(ImageProbe.inspect(TestImages.truncatedPNG()).refusal == .truncated(.png))
    }

    @Test func checkableContentTypesAreImageProbesFormats() {
        #expect(UploadTypeConfig.checkableContentTypes == Set(ImageFormat.allCases.map(\.mimeType)))
    }
}
