import Config
import Crypto
import Foundation
import HTTP1
import HTTPServer
import JSON
import ObjectStore
import ObjectStoreTestSupport
import Records
import SigV4
import Synchronization
import System
import TestSupport
import Testing
import Uploads

@testable import App

/// The read-URL routes (`GET /images/{id}/url`, `POST /images/urls`, `GET /images/{id}/content`) and
/// the records' `url`, in process: `ImagesService`'s routes behind the real router, a SQLite store in a
/// temporary directory and the real RGW, on a clock the test moves (RGW judges the URLs by its own).
/// Every URL answered is fetched from RGW, which shows the headers signed into it.
@Suite("Read URLs in process against RGW")
struct ReadURLsInProcessTests {
    /// A clock the test moves, in milliseconds.
    final class Clock: Sendable {
        private let ms: Atomic<Int64>
        init(_ ms: Int64) { self.ms = Atomic(ms) }
        var nowMillis: Int64 { ms.load(ordering: .relaxed) }
        var nowSeconds: Int64 { nowMillis / 1000 }
        func set(seconds: Int64) { ms.store(seconds * 1000, ordering: .relaxed) }
        func advance(seconds: Int64) { ms.add(seconds * 1000, ordering: .relaxed) }
    }

    /// Now on the wall clock, in seconds.
    static var wallSeconds: Int64 { Int64(Date().timeIntervalSince1970) }

    /// A type whose uploads are HTML, not checked (`contentCheck: false`).
    static let documentType = UploadTypeConfig(
        name: "DOC", extensions: ["html"], contentTypes: ["text/html"], keyTemplate: "doc/{userId}/{uuid}.{ext}",
        maxBytes: 100_000, contentCheck: false)

    /// The routes over a SQLite store and RGW; shuts its threads down when released.
    final class Harness {
        let s3: TestServices.S3
        let clock: Clock
        let store: SQLiteRecordStore
        let storage: S3Client
        let intents: IntentWriter
        let committer: GroupCommitter
        let images: ImagesService
        let signer: RotatingPresigner
        var router = Router()
        /// Object keys made here, under a prefix of this harness.
        let prefix = "readurls-\(UUID().uuidString.lowercased())"

        /// Read URLs in windows of `window` seconds living `life` past them, signed with `credentials`
        /// (RGW's keys, long-term, unless given) and a minimum lifetime of `minimumLifetime`; `cdn` as
        /// `presign.cdnBaseUrl`; the clock at `clockSeconds` (the wall clock's second by default).
        init(
            window: Int = 3600, life: Int = 3600, credentials: Credentials? = nil, minimumLifetime: Int = 60,
            cdn: String? = nil, clockSeconds: Int64? = nil
        ) throws {
            s3 = try TestServices.s3()
            clock = Clock((clockSeconds ?? ReadURLsInProcessTests.wallSeconds) * 1000)
            store = try SQLiteRecordStore(
                path: Temporary.directory() + "/records.sqlite3", readers: 2, busyTimeoutMs: 5000)
            try store.migrate()
            let endpoint = try Endpoint(parsing: s3.endpoint)
            let keys =
                credentials ?? Credentials(accessKeyId: s3.accessKey, secretAccessKey: Secret(s3.secretKey))
            storage = S3Client(
                options: ObjectStoreOptions(endpoint: endpoint, bucket: s3.bucket),
                signer: RotatingPresigner(
                    try Presigner(
                        credentials: Credentials(accessKeyId: s3.accessKey, secretAccessKey: Secret(s3.secretKey)),
                        region: s3.region, endpoint: endpoint, addressing: .path)),
                now: { ReadURLsInProcessTests.wallSeconds })
            signer = RotatingPresigner(
                try Presigner(credentials: keys, region: s3.region, endpoint: endpoint, addressing: .path),
                minimumLifetimeSeconds: minimumLifetime)
            var config = PresigndConfig.defaults
            config.types.append(ReadURLsInProcessTests.documentType)
            let clock = self.clock
            let env = UploadEnvironment(
                nowMillis: { clock.nowMillis }, newUUID: { UUID().uuidString.lowercased() })
            intents = IntentWriter(store: store, batchSize: 16, onError: { _ in })
            committer = GroupCommitter(store: store, maxBatch: 16)
            let catalog = try UploadCatalog(config.types)
            let keeper = IntentKeeper(writer: intents)
            let confirmer = Confirmer(
                catalog: catalog, ownership: ImageKeyOwnership(store: store, intents: keeper, nowMillis: env.nowMillis),
                intents: keeper, storage: storage, committer: committer, store: store, env: env, events: { _ in })
            let records = UploadRecords(
                store: store, storage: storage, readSigner: signer, bucket: s3.bucket, readUrlExpires: life,
                cdnBaseUrl: cdn, env: env, readUrlWindow: window)
            images = ImagesService(
                config: config, confirmer: confirmer, records: records, catalog: catalog,
                gate: Gate(callers: DevelopmentCallerResolver(header: "X-User-Id", defaultUserId: "1")))
            for route in images.routes() { router.add(route) }
        }

        deinit {
            committer.shutdown()
            intents.shutdown()
        }

        /// Answers `method target` as the server would: the router's route, its handler, then its
        /// worker part.
        func send(
            _ method: HTTPMethod, _ target: String, user: String = "u1", body: String? = nil,
            contentType: String = "application/json"
        ) throws -> Response {
            var head = "\(method.name) \(target) HTTP/1.1\r\nHost: presignd\r\nX-User-Id: \(user)\r\n"
            if let body { head += "Content-Type: \(contentType)\r\nContent-Length: \(body.utf8.count)\r\n" }
            guard case .complete(let parsed, _) = RequestParser.parseHead(Array((head + "\r\n").utf8)) else {
                throw TestFailure("test request does not parse: \(target)")
            }
            guard case .found(let route, let parameters) = router.match(method: method, path: parsed.path) else {
                throw TestFailure("no route for \(method.name) \(parsed.path)")
            }
            let request = Request(
                head: parsed, body: Array((body ?? "").utf8), pathParameters: parameters, requestId: "t",
                peer: "127.0.0.1:1")
            switch route.handler(request) {
            case .respond(let response): return response
            case .blocking(let work): return work()
            case .deferred, .blockingDeferred: throw TestFailure("these routes answer inline or on a worker")
            }
        }

        /// Puts `bytes` into RGW at a new key ending in `name`, stores the intent of `owner` for it and
        /// confirms it through `POST /images` with `metadata`: the record's JSON.
        func record(
            _ bytes: [UInt8], name: String = "a.jpg", contentType: String = "image/jpeg", owner: String = "u1",
            type: String = "IMAGE", metadata: String = "{}"
        ) throws -> JSONValue {
            let key = "\(prefix)/\(UUID().uuidString.lowercased())/\(name)"
            _ = try storage.put(key: key, bytes: bytes, contentType: contentType)
            try store.putIntents([
                UploadIntent(
                    ownerId: owner, imageKey: key, objectKey: key, permanentKey: nil, type: type, contentType: nil,
                    allowedContentTypes: [contentType], maxBytes: 100_000, createdAtMs: clock.nowMillis,
                    expiresAtMs: clock.nowMillis + 600_000)
            ])
            let r = try send(
                .POST, "/images", user: owner, body: #"{"imageKey":"\#(key)","metadata":\#(metadata)}"#)
            guard r.status == 201 else {
                throw TestFailure("confirmation answered \(r.status): \(String(decoding: r.body, as: UTF8.self))")
            }
            return try JSONValue(parsing: r.body)
        }

        /// `GET /images/{id}/url` (with `query`): the status and the JSON.
        func readURL(_ id: String, query: String = "", user: String = "u1") throws -> (Int, JSONValue) {
            let r = try send(.GET, "/images/\(id)/url" + query, user: user)
            return (r.status, try JSONValue(parsing: r.body))
        }

        /// The `url` of a successful `GET /images/{id}/url`.
        func url(_ id: String, query: String = "") throws -> String {
            let (status, json) = try readURL(id, query: query)
            try #require(status == 200, "\(json)")
            return try #require(json["url"]?.stringValue)
        }

        /// GETs `url` from RGW, as an image view would.
        func fetch(_ url: String) throws -> RawClient.Response {
            let (host, port) = s3.hostPort
            let target = String(url[try #require(url.range(of: "\(host):\(port)")).upperBound...])
            let c = try RawClient(port: port, host: host, timeoutMs: 15_000)
            c.send("GET \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n\r\n")
            return try #require(c.readResponse())
        }
    }

    /// A small JPEG whose bytes are its own.
    static func jpeg() -> [UInt8] { TestImages.jpeg(width: 4, height: 3, tail: Array(UUID().uuidString.utf8)) }

    /// The decoded query of `url`, by name.
    static func query(_ url: String) throws -> [String: String] {
        let items = try #require(URLComponents(string: url)?.queryItems)
        return Dictionary(uniqueKeysWithValues: items.map { ($0.name, $0.value ?? "") })
    }

    /// `X-Amz-Date` of `url`, in epoch seconds.
    static func signedAt(_ url: String) throws -> Int64 {
        try #require(AmzDate.epochSeconds(try query(url)["X-Amz-Date"] ?? ""))
    }

    /// An RFC 3339 time of an answer, in epoch seconds.
    static func seconds(_ value: JSONValue?) throws -> Int64 {
        let text = try #require(value?.stringValue)
        return try #require(ISO8601Timestamp.epochSeconds(text))
    }

    /// The body of an answer, as text.
    static func text(_ r: Response) -> String { String(decoding: r.body, as: UTF8.self) }

    @Test("two reads in one window answer the same URL; GET through it has the bytes and the signed headers")
    func sameURLInAWindow() throws {
        // The clock at the window's second second: every read below is in one window whose start is past.
        let windowStart = Self.wallSeconds / 3600 * 3600
        let h = try Harness(clockSeconds: windowStart + 1)
        let bytes = Self.jpeg()
        let record = try h.record(bytes, name: "cat.jpg", metadata: #"{"filename":"cat photo.jpg"}"#)
        let id = try #require(record["id"]?.stringValue)

        let (status, first) = try h.readURL(id)
        #expect(status == 200)
        h.clock.advance(seconds: 1)
        let (_, second) = try h.readURL(id)
        let url = try #require(first["url"]?.stringValue)
        #expect(second["url"]?.stringValue == url)
        #expect(first["contentType"]?.stringValue == "image/jpeg")
        #expect(first["disposition"]?.stringValue == "inline")
        #expect(try Self.signedAt(url) == windowStart)
        #expect(try Self.seconds(first["expiresAt"]) == windowStart + 7200)
        #expect(try Self.query(url)["X-Amz-Expires"] == "7200")
        // The record's own reads answer the same URL.
        #expect(record["url"]?.stringValue == url)
        #expect(try JSONValue(parsing: h.send(.GET, "/images/\(id)").body)["url"]?.stringValue == url)
        let page = try JSONValue(parsing: h.send(.GET, "/images").body)
        #expect(page["items"]?.arrayValue?.first?["url"]?.stringValue == url)

        let got = try h.fetch(url)
        #expect(got.status == 200)
        #expect(got.body == bytes)
        #expect(got.header("Content-Type") == "image/jpeg")
        #expect(got.header("Content-Disposition") == #"inline; filename="cat photo.jpg""#)
        #expect(got.header("Cache-Control") == "private, max-age=7200, immutable")

        // A download asked for: another URL, the same bytes, saved under the name.
        let download = try h.url(id, query: "?disposition=attachment")
        #expect(download != url)
        let saved = try h.fetch(download)
        #expect(saved.body == bytes)
        #expect(saved.header("Content-Disposition") == #"attachment; filename="cat photo.jpg""#)
    }

    @Test("RGW takes a URL signed 50 minutes ago within its life, and refuses it once expiresAt has passed")
    func signedInThePast() throws {
        let h = try Harness(window: 0, life: 3600, clockSeconds: Self.wallSeconds - 3000)
        let bytes = Self.jpeg()
        let id = try #require(try h.record(bytes)["id"]?.stringValue)
        let (_, live) = try h.readURL(id)
        #expect(try Self.seconds(live["expiresAt"]) == h.clock.nowSeconds + 3600)
        #expect(try h.fetch(try #require(live["url"]?.stringValue)).body == bytes)

        h.clock.advance(seconds: -1000)  // signed 4000 s ago for 3600: its expiresAt has passed
        let (_, dead) = try h.readURL(id)
        #expect(try Self.seconds(dead["expiresAt"]) < Self.wallSeconds)
        let refused = try h.fetch(try #require(dead["url"]?.stringValue))
        #expect(refused.status == 403, "\(refused.text)")
    }

    @Test("a 2 s window: a read after the boundary answers a new URL, and both fetch the same bytes")
    func twoSecondWindow() throws {
        let start = (Self.wallSeconds - 10) / 2 * 2
        let h = try Harness(window: 2, life: 60, clockSeconds: start + 1)
        let bytes = Self.jpeg()
        let id = try #require(try h.record(bytes)["id"]?.stringValue)
        let before = try h.url(id)
        #expect(try Self.signedAt(before) == start)
        h.clock.advance(seconds: 1)  // start + 2: the next window
        let after = try h.url(id)
        #expect(after != before)
        #expect(try Self.signedAt(after) == start + 2)
        #expect(try Self.query(after)["X-Amz-Expires"] == "62")
        #expect(try h.fetch(before).body == bytes)
        #expect(try h.fetch(after).body == bytes)
        #expect(try h.fetch(after).header("Cache-Control") == "private, max-age=62, immutable")
    }

    @Test("a hostile metadata filename reaches RGW's Content-Disposition only as the safe name Python reads")
    func hostileFilename() throws {
        let h = try Harness()
        let metadata = #"{"filename":"../../\"evil\";\r\nname 사진.jpg"}"#
        let id = try #require(try h.record(Self.jpeg(), metadata: metadata)["id"]?.stringValue)
        for query in ["", "?disposition=attachment"] {
            let got = try h.fetch(try h.url(id, query: query))
            #expect(got.status == 200)
            let header = try #require(got.header("Content-Disposition"))
            #expect(!header.unicodeScalars.contains { $0 == "\r" || $0 == "\n" || $0 == "\\" || !$0.isASCII })
            let reading = try #require(try ContentDispositionReading.read([header]).first)
            #expect(reading.disposition == (query.isEmpty ? "inline" : "attachment"))
            #expect(reading.filename == "_evil__name __.jpg", "\(header)")
            #expect(reading.params == [["filename", "_evil__name __.jpg"], ["filename", "_evil__name 사진.jpg"]])
        }
    }

    @Test("an object stored as text/html under a type with the content check off is served attachment")
    func htmlIsAttachment() throws {
        let h = try Harness()
        let html = TestImages.html
        let record = try h.record(html, name: "page.html", contentType: "text/html", type: "DOC")
        #expect(record["contentType"]?.stringValue == "text/html")
        #expect(record["detectedType"]?.isNull == true)
        let id = try #require(record["id"]?.stringValue)
        let (status, read) = try h.readURL(id)
        #expect(status == 200)
        #expect(read["disposition"]?.stringValue == "attachment" && read["contentType"]?.stringValue == "text/html")
        let got = try h.fetch(try #require(read["url"]?.stringValue))
        #expect(got.body == html)
        #expect(got.header("Content-Type") == "text/html")
        #expect(got.header("Content-Disposition") == #"attachment; filename="page.html""#)
        #expect(record["url"]?.stringValue == read["url"]?.stringValue)

        let inline = try h.send(.GET, "/images/\(id)/url?disposition=inline")
        #expect(inline.status == 422)
        #expect(
            Self.text(inline).hasPrefix(
                #"{"code":"4220","message":"UNPROCESSABLE_CONTENT","fieldErrors":{"disposition":"disposition inline is only for image/avif"#
            ))
        #expect(try h.send(.GET, "/images/\(id)/content?disposition=inline").status == 422)
        let bogus = try h.send(.GET, "/images/\(id)/url?disposition=bogus")
        #expect(bogus.status == 422)
        #expect(
            Self.text(bogus)
                == #"{"code":"4220","message":"UNPROCESSABLE_CONTENT","fieldErrors":{"disposition":"disposition must be attachment or inline"}}"#
        )
        #expect(try h.send(.GET, "/images/\(id)/url?disposition=%ZZ").status == 400)
    }

    @Test("the batch route: owned ids answered, foreign, deleted, unknown and malformed ones missing")
    func batch() throws {
        let h = try Harness()
        let a = try #require(try h.record(Self.jpeg())["id"]?.stringValue)
        let b = try #require(try h.record(Self.jpeg(), name: "b.png", contentType: "image/jpeg")["id"]?.stringValue)
        let foreign = try #require(try h.record(Self.jpeg(), owner: "u2")["id"]?.stringValue)
        let deleted = try #require(try h.record(Self.jpeg())["id"]?.stringValue)
        #expect(try h.send(.DELETE, "/images/\(deleted)").status == 204)
        let unknown = UUID().uuidString.lowercased()
        let upperB = b.uppercased()
        let body = #"{"ids":["\#(a)","\#(foreign)","\#(deleted)","nope","\#(upperB)","\#(unknown)"]}"#
        let r = try h.send(.POST, "/images/urls", body: body)
        #expect(r.status == 200)
        #expect(r.headers.contains { $0.name == "Cache-Control" && $0.value == "no-store" })
        let json = try JSONValue(parsing: r.body)
        let urls = try #require(json["urls"]?.objectValue)
        #expect(urls.keys == [a, upperB])
        #expect(json["missing"]?.arrayValue?.compactMap(\.stringValue) == [foreign, deleted, "nope", unknown])
        for (id, sent) in [(a, a), (b, upperB)] {
            let entry = try #require(urls[sent])
            let single = try h.readURL(id).1
            #expect(entry["url"]?.stringValue == single["url"]?.stringValue)
            #expect(entry["expiresAt"]?.stringValue == single["expiresAt"]?.stringValue)
            #expect(try h.fetch(try #require(entry["url"]?.stringValue)).status == 200)
        }
        // u2 sees only its own.
        let theirs = try JSONValue(parsing: h.send(.POST, "/images/urls", user: "u2", body: body).body)
        #expect(theirs["urls"]?.objectValue?.keys == [foreign])

        // Bad input: a clear 4xx in the API's shape.
        let hundredAndOne = (0...100).map { _ in #""\#(UUID().uuidString.lowercased())""# }.joined(separator: ",")
        let refusals: [(String, String, Int, String)] = [
            (#"{"ids":[\#(hundredAndOne)]}"#, "application/json", 422, "ids must hold 1 to 100 record ids; got 101"),
            (#"{"ids":[]}"#, "application/json", 422, "ids must hold 1 to 100 record ids; got 0"),
            (
                #"{"ids":["\#(a)","\#(a.uppercased())"]}"#, "application/json", 422,
                "ids[1] repeats an id given before it"
            ),
            (#"{"ids":["x","x"]}"#, "application/json", 422, "ids[1] repeats an id given before it"),
            (#"{"ids":"\#(a)"}"#, "application/json", 422, "ids must be an array of record ids"),
            (#"{"ids":[1]}"#, "application/json", 422, "ids[0] is not a string"),
            ("{}", "application/json", 422, "ids is required"),
            ("{", "application/json", 400, "MALFORMED_JSON"),
            ("ids=1", "application/json", 400, "MALFORMED_JSON"),
            (#"{"ids":["\#(a)"]}"#, "text/plain", 415, "UNSUPPORTED_MEDIA_TYPE"),
        ]
        for (body, type, status, text) in refusals {
            let refused = try h.send(.POST, "/images/urls", body: body, contentType: type)
            #expect(refused.status == status, "\(body)")
            #expect(Self.text(refused).contains(text), "\(Self.text(refused))")
        }
        // A hundred is fine.
        let hundred = (0..<99).map { _ in #""\#(UUID().uuidString.lowercased())""# }.joined(separator: ",")
        let full = try JSONValue(
            parsing: h.send(.POST, "/images/urls", body: #"{"ids":["\#(a)",\#(hundred)]}"#).body)
        #expect(full["urls"]?.objectValue?.keys == [a] && full["missing"]?.arrayValue?.count == 99)
    }

    @Test("GET /images/{id}/content: a 302 to the stable URL, cacheable until a minute before it expires")
    func redirect() throws {
        let windowStart = Self.wallSeconds / 3600 * 3600
        let h = try Harness(clockSeconds: windowStart + 100)
        let bytes = Self.jpeg()
        let id = try #require(try h.record(bytes)["id"]?.stringValue)
        let r = try h.send(.GET, "/images/\(id)/content")
        #expect(r.status == 302)
        let location = try #require(r.headers.first { $0.name == "Location" }?.value)
        #expect(location == (try h.url(id)))
        #expect(r.headers.first { $0.name == "Cache-Control" }?.value == "private, max-age=\(7200 - 100 - 60)")
        #expect(try h.fetch(location).body == bytes)
        let download = try h.send(.GET, "/images/\(id)/content?disposition=attachment")
        #expect(
            download.headers.first { $0.name == "Location" }?.value == (try h.url(id, query: "?disposition=attachment"))
        )
    }

    @Test("another owner's, unknown and malformed ids are 404 on every read route; a deleted record at once")
    func notFound() throws {
        let h = try Harness()
        let id = try #require(try h.record(Self.jpeg())["id"]?.stringValue)
        let notFound = #"{"code":"IMAGE_NOT_FOUND","message":"no such image"}"#
        for path in ["/images/\(id)/url", "/images/\(id)/content", "/images/\(id)"] {
            let foreign = try h.send(.GET, path, user: "u2")
            #expect(foreign.status == 404 && (Self.text(foreign)) == notFound, "\(path)")
        }
        for bad in [UUID().uuidString.lowercased(), "abc", "%2e%2e", "7d444840-9dc0-11d1-b245-5ffdce74fad"] {
            for suffix in ["/url", "/content"] {
                let r = try h.send(.GET, "/images/\(bad)\(suffix)")
                #expect(r.status == 404 && (Self.text(r)) == notFound, "\(bad)\(suffix)")
            }
        }
        #expect(try h.send(.GET, "/images/\(id.uppercased())/url").status == 200)
        #expect(try h.send(.DELETE, "/images/\(id)").status == 204)
        for path in ["/images/\(id)/url", "/images/\(id)/content", "/images/\(id)"] {
            #expect(try h.send(.GET, path).status == 404, "\(path)")
        }
        let batch = try JSONValue(parsing: h.send(.POST, "/images/urls", body: #"{"ids":["\#(id)"]}"#).body)
        #expect(batch["missing"]?.arrayValue?.compactMap(\.stringValue) == [id])
    }

    @Test("temporary credentials expiring in 40 s: expiresAt and X-Amz-Date + X-Amz-Expires never beyond them")
    func temporaryCredentials() throws {
        let s3 = try TestServices.s3()
        let now = Self.wallSeconds
        let expiration = now + 40
        // RGW's own keys, served as temporary ones (RGW's users have no session token).
        let h = try Harness(
            credentials: Credentials(
                accessKeyId: s3.accessKey, secretAccessKey: Secret(s3.secretKey), expiration: expiration),
            minimumLifetime: 10, clockSeconds: now)
        let bytes = Self.jpeg()
        let record = try h.record(bytes)
        let id = try #require(record["id"]?.stringValue)
        let (status, read) = try h.readURL(id)
        #expect(status == 200)
        let url = try #require(read["url"]?.stringValue)
        let expiresAt = try Self.seconds(read["expiresAt"])
        let signedAt = try Self.signedAt(url)
        let lifetime = try #require(Int64(try Self.query(url)["X-Amz-Expires"] ?? ""))
        #expect(expiresAt <= expiration && signedAt + lifetime <= expiration)
        #expect(expiresAt == signedAt + lifetime)
        #expect(signedAt == now / 3600 * 3600)
        #expect(try Self.query(url)["response-cache-control"] == "private, max-age=\(lifetime), immutable")
        #expect(try h.fetch(url).body == bytes)
        // Batch and record JSON: the same clamp.
        let batch = try JSONValue(parsing: h.send(.POST, "/images/urls", body: #"{"ids":["\#(id)"]}"#).body)
        #expect(batch["urls"]?[id]?["url"]?.stringValue == url)
        #expect(record["url"]?.stringValue == url)
        // A redirect is not cached past the URL (less than its margin is left).
        let redirect = try h.send(.GET, "/images/\(id)/content")
        #expect(redirect.headers.first { $0.name == "Cache-Control" }?.value == "private, max-age=0")

        // 5 s left, under the 10 s minimum: no URL, 503 with Retry-After; the record's url is null.
        h.clock.set(seconds: expiration - 5)
        let refused = try h.send(.GET, "/images/\(id)/url")
        #expect(refused.status == 503)
        #expect(Self.text(refused).contains(#""code":"CREDENTIALS_UNAVAILABLE""#))
        #expect(refused.headers.contains { $0.name == "Retry-After" })
        #expect(try h.send(.POST, "/images/urls", body: #"{"ids":["\#(id)"]}"#).status == 503)
        #expect(try JSONValue(parsing: h.send(.GET, "/images/\(id)").body)["url"]?.isNull == true)
    }

    @Test("with presign.cdnBaseUrl the routes answer the CDN's URL, with no expiry and no disposition")
    func cdn() throws {
        let h = try Harness(cdn: "https://media.example.com/m")
        let record = try h.record(Self.jpeg(), name: "a.jpg")
        let id = try #require(record["id"]?.stringValue)
        let key = try #require(record["key"]?.stringValue)
        let (status, read) = try h.readURL(id)
        #expect(status == 200)
        #expect(read["url"]?.stringValue == "https://media.example.com/m/" + key)
        #expect(read["expiresAt"]?.isNull == true && read["disposition"]?.isNull == true)
        #expect(read["contentType"]?.stringValue == "image/jpeg")
        let r = try h.send(.GET, "/images/\(id)/content")
        #expect(r.status == 302)
        #expect(r.headers.first { $0.name == "Location" }?.value == "https://media.example.com/m/" + key)
        #expect(r.headers.first { $0.name == "Cache-Control" }?.value == "private, max-age=3600")
        let batch = try JSONValue(parsing: h.send(.POST, "/images/urls", body: #"{"ids":["\#(id)"]}"#).body)
        #expect(batch["urls"]?[id]?["expiresAt"]?.isNull == true)
    }
}
