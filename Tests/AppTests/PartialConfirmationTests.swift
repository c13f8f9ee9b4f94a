import AppTestSupport
import Foundation
import JSON
import Records
import RecordsTestSupport
import TestSupport
import Testing

/// A confirmation that stops halfway through promoting an upload (PROFILE: copy to the permanent key,
/// delete the upload, insert the record): the delete of the upload fails after the copy, or the record
/// insert fails after both. A repeated confirmation converges to one record with the object at its
/// permanent key and no upload left behind; the application in process against RGW (a fault proxy on
/// the server's own S3 calls) and, for the insert, a PostgreSQL cluster of the test's own. (Killed
/// during the copy: CrashDurabilityTests.)
@Suite("Partial confirmations (RGW)", .serialized)
struct PartialConfirmationTests {
    /// Issues a PROFILE URL to user 9 (client P) and uploads to it; the key (also the image key).
    static func uploaded(_ server: some HTTPTarget, _ s3: TestEnvironment.S3) async throws -> String {
        let issued = try await ClientPFlowTests.issue(server, query: "type=PROFILE&ext=jpg", user: "9")
        #expect(issued.status == 200, "\(issued.text)")
        let json = try JSONValue(parsing: issued.body)
        let url = try #require(json["presignedUrl"]?.stringValue)
        let key = try #require(json["key"]?.stringValue)
        let target = String(url[url.range(of: s3.endpoint)!.upperBound...])
        let put = try await ClientPFlowTests.put(
            s3, target: target, contentType: "image/jpeg",
            body: TestImages.jpeg(width: 4, height: 3, tail: Array(key.utf8)))
        #expect(put == 200)
        return key
    }

    /// POST /images as user 9: status, code, and the record's id and object key when there is one.
    static func confirm(_ server: some HTTPTarget, _ key: String) async throws -> (Int, String?, String?, String?) {
        let r = try #require(
            await PostgresOutageTests.request(server, "POST", "/images", body: #"{"imageKey":"\#(key)"}"#))
        let json = try? JSONValue(parsing: r.body)
        return (r.status, json?["code"]?.stringValue, json?["id"]?.stringValue, json?["key"]?.stringValue)
    }

    @Test("the copy succeeds, then deleting the upload fails: a repeat converges to one record")
    func deleteFailsAfterCopy() async throws {
        let s3 = try TestEnvironment.s3()
        let proxy = try FaultProxy(inFrontOf: s3)
        defer { proxy.close() }
        let server = try await StorageFaultTests.start(s3, proxy: proxy)
        defer { server.stop() }
        let key = try await Self.uploaded(server, s3)
        let permanent = key.replacingOccurrences(of: "delete/profile/9/", with: "profile/9/origin/")
        let storage = try s3.client()

        proxy.setRules([.init(.method("DELETE"), .status(500, code: "InternalError"))])
        let (status, code, _, _) = try await Self.confirm(server, key)
        #expect(status == 502 && code == "STORAGE_ERROR", "\(status) \(code ?? "-")")
        #expect(proxy.faultCount == 2, "the delete and its one retry failed")
        #expect(try storage.head(key: permanent) != nil, "the copy was made")
        #expect(try storage.head(key: key) != nil, "the upload is still there")

        proxy.setRules([])
        let (again, _, id, recordedKey) = try await Self.confirm(server, key)
        #expect(again == 201)
        #expect(recordedKey == permanent)
        #expect(try storage.head(key: key) == nil, "the upload is gone")
        #expect(try storage.head(key: permanent) != nil)
        let (third, _, sameId, _) = try await Self.confirm(server, key)
        #expect(third == 200 && sameId == id, "one record")
    }

    @Test("the copy and delete succeed, then the record insert fails: a repeat finds the copy and records it")
    func insertFailsAfterCopy() async throws {
        let s3 = try TestEnvironment.s3()
        let cluster = try await onThread { try PostgresCluster() }
        defer { cluster.destroy() }
        let (env, _) = TestEnvironment.serverEnvironment(s3: s3, extra: ["PRESIGN_RECORDS_URL": cluster.url])
        let server = try await InProcessApp(environment: env)
        defer { server.stop() }
        let key = try await Self.uploaded(server, s3)
        let permanent = key.replacingOccurrences(of: "delete/profile/9/", with: "profile/9/origin/")
        let storage = try s3.client()

        // Every insert into records fails (as a database that goes away at the wrong moment would).
        try Self.psql(
            cluster.url,
            """
            CREATE FUNCTION refuse_records() RETURNS trigger LANGUAGE plpgsql AS
              $$ BEGIN RAISE EXCEPTION 'records refused by the test'; END $$;
            CREATE TRIGGER refuse_records BEFORE INSERT ON records FOR EACH ROW EXECUTE FUNCTION refuse_records();
            """)
        let (status, code, _, _) = try await Self.confirm(server, key)
        #expect(status == 503 && code == "STORE_UNAVAILABLE", "\(status) \(code ?? "-")")
        #expect(try storage.head(key: key) == nil, "the upload was moved")
        #expect(try storage.head(key: permanent) != nil, "to the permanent key")
        let store = try RecordStoreFactory.open(url: cluster.url, poolSize: 1, busyTimeoutMs: 5000)
        #expect(try store.record(imageKey: key) == nil)
        #expect(try store.intent(imageKey: key)?.permanentKey == permanent, "the intent still names the copy")

        try Self.psql(cluster.url, "DROP TRIGGER refuse_records ON records")
        let (again, _, id, recordedKey) = try await Self.confirm(server, key)
        #expect(again == 201)
        #expect(recordedKey == permanent)
        let record = try #require(try store.record(imageKey: key))
        #expect(
            record.id == id && record.objectKey == permanent
                && record.size == Int64(TestImages.jpeg(width: 4, height: 3, tail: Array(key.utf8)).count))
        let (third, _, sameId, _) = try await Self.confirm(server, key)
        #expect(third == 200 && sameId == id, "one record")
    }

    /// Runs `sql` with psql on `url`.
    static func psql(_ url: String, _ sql: String) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
        p.arguments = [url, "-q", "-v", "ON_ERROR_STOP=1", "-c", sql]
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw TestFailure("psql failed: \(sql)") }
    }
}
