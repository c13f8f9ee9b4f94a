import Crypto
import Foundation
import Records
import SigV4
import TestSupport
import Testing
import Uploads

/// `UploadRecords.readURL(for:requested:)` on a moved clock over a SQLite store: the window's URL, its
/// policy in the query, the credentials' clamp, the CDN form; and `records(ids:owner:)`.
@Suite("Read URLs of records")
struct UploadRecordsReadURLTests {
    /// 2026-11-29T08:59:31Z, in milliseconds.
    static let start: Int64 = 1_795_942_771_000

    /// `UploadRecords` over a fresh SQLite store with `credentials`, windows of `window` seconds and
    /// URLs with at least `life` left, at `clock`'s time.
    static func records(
        clock: ManualClock, window: Int = 3600, life: Int = 3600, credentials: Credentials? = nil,
        minimumLifetime: Int = 60, cdn: String? = nil
    ) throws -> (UploadRecords, SQLiteRecordStore, RotatingPresigner) {
        let store = try SQLiteRecordStore(
            path: Temporary.directory() + "/records.sqlite3", readers: 2, busyTimeoutMs: 5000)
        try store.migrate()
        let signer = RotatingPresigner(
            try Presigner(
                credentials: credentials
                    ?? Credentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: Secret("test-secret")),
                region: "us-east-1", endpoint: Endpoint(parsing: "http://127.0.0.1:9000"), addressing: .path),
            minimumLifetimeSeconds: minimumLifetime)
        let env = UploadEnvironment(nowMillis: { clock.now }, newUUID: { UUID().uuidString.lowercased() })
        let records = UploadRecords(
            store: store, storage: nil, readSigner: signer, bucket: "uploads", readUrlExpires: life, cdnBaseUrl: cdn,
            env: env, readUrlWindow: window)
        return (records, store, signer)
    }

    /// A record of `contentType` at `key`.
    static func record(
        _ contentType: String = "image/jpeg", key: String = "profile/u1/origin/a.jpg", owner: String = "u1"
    )
        -> ImageRecord
    {
        ImageRecord(
            id: UUID().uuidString.lowercased(), ownerId: owner, imageKey: UUID().uuidString.lowercased(),
            objectKey: key, type: "PROFILE", contentType: contentType, size: 10, etag: "\"e\"", metadataJSON: "{}",
            createdAtMs: start)
    }

    /// The decoded query of `url`, by name.
    static func query(_ url: String) throws -> [String: String] {
        let items = try #require(URLComponents(string: url)?.queryItems)
        return Dictionary(uniqueKeysWithValues: items.map { ($0.name, $0.value ?? "") })
    }

    @Test("every read within a window answers the same URL, signed at its start; the next window another")
    func windowed() throws {
        let clock = ManualClock(Self.start)
        let (records, _, _) = try Self.records(clock: clock)
        let record = Self.record()
        let first = try records.readURL(for: record)
        clock.advance(28 * 1000)  // 08:59:59
        let again = try records.readURL(for: record)
        #expect(again == first)
        let q = try Self.query(first.url)
        #expect(q["X-Amz-Date"] == "20261129T080000Z")
        #expect(q["X-Amz-Expires"] == "7200")
        #expect(first.expiresAt == Int64(1_795_939_200 + 7200))
        #expect(first.contentType == "image/jpeg" && first.disposition == .inline)
        #expect(q["response-content-type"] == "image/jpeg")
        #expect(q["response-content-disposition"] == #"inline; filename="a.jpg""#)
        #expect(q["response-cache-control"] == "private, max-age=7200, immutable")
        #expect(Array(q.keys).filter { $0.hasPrefix("response-") }.count == 3)

        clock.advance(1000)  // 09:00:00
        let next = try records.readURL(for: record)
        #expect(next.url != first.url)
        #expect(try Self.query(next.url)["X-Amz-Date"] == "20261129T090000Z")
        #expect(next.expiresAt == Int64(1_795_942_800 + 7200))
        // Even the window's last second answers a URL with the life left.
        #expect(first.expiresAt! - (Self.start / 1000 + 28) == 3601)
        #expect(records.url(for: record) == next.url)
    }

    @Test("a download asked for is signed as attachment; HTML is attachment whatever is asked")
    func dispositions() throws {
        let clock = ManualClock(Self.start)
        let (records, _, _) = try Self.records(clock: clock)
        let image = try records.readURL(for: Self.record(), requested: .attachment)
        #expect(image.disposition == .attachment)
        #expect(try Self.query(image.url)["response-content-disposition"] == #"attachment; filename="a.jpg""#)
        #expect(image.url != (try records.readURL(for: Self.record())).url)
        let html = try records.readURL(for: Self.record("text/html", key: "k/page.html"), requested: .inline)
        #expect(html.disposition == .attachment && html.contentType == "text/html")
        #expect(try Self.query(html.url)["response-content-disposition"] == #"attachment; filename="page.html""#)
    }

    @Test("no window: signed at the current second for the life")
    func noWindow() throws {
        let clock = ManualClock(Self.start)
        let (records, _, _) = try Self.records(clock: clock, window: 0, life: 600)
        let read = try records.readURL(for: Self.record())
        let q = try Self.query(read.url)
        #expect(q["X-Amz-Date"] == "20261129T085931Z" && q["X-Amz-Expires"] == "600")
        #expect(q["response-cache-control"] == "private, max-age=600, immutable")
        #expect(read.expiresAt == Self.start / 1000 + 600)
    }

    @Test("temporary credentials: the URL and its max-age end with them; too little left is refused")
    func temporaryCredentials() throws {
        let clock = ManualClock(Self.start)
        let expiration = Self.start / 1000 + 40
        let (records, _, signer) = try Self.records(
            clock: clock,
            credentials: Credentials(
                accessKeyId: "ASIAEXAMPLE", secretAccessKey: Secret("s"), sessionToken: Secret("token"),
                expiration: expiration), minimumLifetime: 10)
        let read = try records.readURL(for: Self.record())
        let q = try Self.query(read.url)
        #expect(read.expiresAt == expiration)
        let signedAt = try #require(AmzDate.epochSeconds(q["X-Amz-Date"] ?? ""))
        #expect(signedAt == 1_795_939_200)
        #expect(signedAt + Int64(q["X-Amz-Expires"].flatMap { Int($0) } ?? 0) == expiration)
        #expect(q["response-cache-control"] == "private, max-age=\(expiration - signedAt), immutable")
        #expect(q["X-Amz-Security-Token"] == "token")
        // Still the same URL a little later (nothing in it depends on the second).
        clock.advance(20 * 1000)
        #expect(try records.readURL(for: Self.record(key: "profile/u1/origin/a.jpg")).url == read.url)
        // 9 s left, under the minimum of 10: refused, and counted.
        clock.advance(11 * 1000)
        #expect(throws: UploadError.credentialsUnavailable(secondsLeft: 9)) { try records.readURL(for: Self.record()) }
        #expect(records.url(for: Self.record()) == nil)
        #expect(signer.refusalCount == 2)
    }

    @Test("with a CDN the URL is the CDN's, with no expiry and no disposition")
    func cdn() throws {
        let clock = ManualClock(Self.start)
        let (records, _, _) = try Self.records(clock: clock, cdn: "https://cdn.example.com/media")
        let read = try records.readURL(for: Self.record("text/html", key: "k/a b.html"))
        #expect(
            read
                == ReadURL(
                    url: "https://cdn.example.com/media/k/a b.html", expiresAt: nil, contentType: "text/html",
                    disposition: nil))
    }

    @Test("records(ids:owner:) finds the owner's records among the ids and nothing else")
    func recordsByIds() throws {
        let clock = ManualClock(Self.start)
        let (records, store, _) = try Self.records(clock: clock)
        let mine = [Self.record(), Self.record()]
        let theirs = Self.record(owner: "u2")
        _ = try store.insertRecords(mine + [theirs])
        let found = try records.records(ids: mine.map(\.id) + [theirs.id, UUID().uuidString.lowercased()], owner: "u1")
        #expect(Set(found.map(\.id)) == Set(mine.map(\.id)))
        #expect(try records.records(ids: [], owner: "u1").isEmpty)
    }
}
