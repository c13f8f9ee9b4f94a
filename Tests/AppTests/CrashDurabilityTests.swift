import Foundation
import JSON
import Records
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// kill -9 at random moments under 8 concurrent writers, 10 cycles: every record whose 201 reached a
/// client is there after restart, and SQLite's integrity check passes.
@Suite("Crash durability", .serialized)
struct CrashDurabilityTests {
    /// One writer: issue a URL, confirm it, remember what was acknowledged; until the server dies.
    static func writer(port: Int, user: String, acked: AckBox, stop: Date) {
        guard let c = try? RawClient(port: port, timeoutMs: 3000) else { return }
        while Date() < stop {
            let uuid = UUID().uuidString.lowercased()
            let issue = #"{"contentType":"image/jpeg","imageKey":"\#(uuid)"}"#
            c.send(
                "POST /presigned-url HTTP/1.1\r\nHost: a\r\nX-User-Id: \(user)\r\nContent-Type: application/json\r\nContent-Length: \(issue.utf8.count)\r\n\r\n\(issue)"
            )
            // nil: the server was killed. Any answer but 200 is a failure of the server, not of the test.
            guard let r1 = c.readResponse() else { return }
            guard r1.status == 200 else {
                acked.unexpected("issue: \(r1.status) \(r1.text)")
                return
            }
            let confirm = #"{"imageKey":"\#(uuid)","metadata":{"w":"\#(user)"}}"#
            c.send(
                "POST /images HTTP/1.1\r\nHost: a\r\nX-User-Id: \(user)\r\nContent-Type: application/json\r\nContent-Length: \(confirm.utf8.count)\r\n\r\n\(confirm)"
            )
            guard let r2 = c.readResponse() else { return }
            guard r2.status == 201, let id = try? JSONValue(parsing: r2.body)["id"]?.stringValue else {
                // A 5xx or a 404 (INTENT_NOT_FOUND) here means a lost intent or a broken store: report
                // it instead of quietly stopping this writer.
                acked.unexpected("confirm: \(r2.status) \(r2.text)")
                return
            }
            acked.add(imageKey: uuid, id: id, owner: user)
        }
    }

    @Test("SIGKILL under 8 writers, 10 cycles: no acknowledged record is lost", arguments: Backend.allCases)
    func killNine(backend: Backend) throws {
        let dir = Temporary.directory()
        let url = try backend.recordsURL(dir: dir)
        let (env, _) = TestEnvironment.serverEnvironment(
            s3: nil, extra: ["PRESIGN_RECORDS_URL": url, "PRESIGN_S3_VERIFY_UPLOADS": "false"])
        let acked = AckBox()
        var rng = SystemRandomNumberGenerator()
        for cycle in 0..<10 {
            let server = try ServerProcess(environment: env)
            let stop = Date().addingTimeInterval(130)
            let port = server.port
            let group = DispatchGroup()
            for w in 0..<8 {
                DispatchQueue.global().async(group: group) {
                    Self.writer(port: port, user: "w\(w)", acked: acked, stop: stop)
                }
            }
            // Wait for this cycle's first acknowledgement (the event itself: a loaded machine may need a
            // while; the bound only keeps a broken server from hanging the suite), then kill at a random
            // moment.
            let before = acked.count
            let deadline = Date().addingTimeInterval(120)
            while acked.count == before && Date() < deadline { usleep(5_000) }
            usleep(UInt32.random(in: 50_000...600_000, using: &rng))
            server.signal(SIGKILL)
            _ = server.waitForExit()
            group.wait()
            #expect(acked.count > before, "cycle \(cycle): no writes were acknowledged")
        }
        // Restart once more, and every acknowledged record must be readable through the API and the store.
        let server = try ServerProcess(environment: env)
        defer { server.stop() }
        let store = try RecordStoreFactory.open(url: url, poolSize: 1, busyTimeoutMs: 5000)
        var missing: [String] = []
        for a in acked.all {
            let r = try store.record(imageKey: a.imageKey)
            if r?.id != a.id || r?.ownerId != a.owner { missing.append(a.imageKey) }
        }
        #expect(missing.isEmpty, "\(missing.count) of \(acked.count) acknowledged records are missing")
        #expect(acked.unexpectedAnswers.isEmpty, "answers a live server should not give: \(acked.unexpectedAnswers)")
        let sample = try #require(acked.all.last)
        let c = try RawClient(port: server.port)
        c.send("GET /images/\(sample.id) HTTP/1.1\r\nHost: a\r\nX-User-Id: \(sample.owner)\r\n\r\n")
        #expect(c.readResponse()?.status == 200)
        if let sqlite = store as? SQLiteRecordStore {
            #expect(try sqlite.integrityCheck() == "ok")
        }
        print("crash durability (\(backend)): \(acked.count) acknowledged records over 10 kill -9 cycles, none lost")
    }
}

/// Acknowledged records, shared by the writer threads.
final class AckBox: @unchecked Sendable {
    struct Ack { let imageKey: String; let id: String; let owner: String }
    private let lock = NSLock()
    private var items: [Ack] = []
    private var odd: [String] = []
    /// Notes an answer the server should not have given.
    func unexpected(_ what: String) {
        lock.lock()
        odd.append(what)
        lock.unlock()
    }
    /// The answers noted by `unexpected`.
    var unexpectedAnswers: [String] {
        lock.lock()
        defer { lock.unlock() }
        return odd
    }
    func add(imageKey: String, id: String, owner: String) {
        lock.lock()
        items.append(Ack(imageKey: imageKey, id: id, owner: owner))
        lock.unlock()
    }
    var all: [Ack] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }
    var count: Int { all.count }
}
