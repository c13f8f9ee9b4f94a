import Foundation
import JSON
import ObjectStore
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The server's own completions of the native API's uploads across kill -9 (the binary, RGW, a SQLite
/// store kept across restarts): each cycle leaves uploads whose parts are all in storage and kills the
/// server at a random moment while its janitor may be completing them; once a server runs to the end,
/// every upload is completed once, with one record, and nothing is left open in RGW.
@Suite("Native uploads: kill -9 while the server completes", .serialized, .heavy(aloneSeconds: 110))
struct NativeUploadsCrashBinaryTests {
    @Test("kill -9 while the server auto-completes, 5 cycles: one record per upload, none left open")
    func killNineWhileCompleting() async throws {
        let s3 = try TestEnvironment.s3()
        let dir = Temporary.directory()
        let (env, _) = TestEnvironment.serverEnvironment(
            s3: s3,
            extra: [
                "PRESIGN_RECORDS_URL": "sqlite:\(dir)/presignd.sqlite3", "PRESIGN_MULTIPART_ENABLED": "true",
                "PRESIGN_MULTIPART_AUTO_COMPLETE_AFTER_SECONDS": "0", "PRESIGN_MULTIPART_CHECK_EVERY_SECONDS": "1",
                "PRESIGN_RECORDS_JANITOR_INTERVAL_MS": "1000",
                // A completion killed while it held its claim is taken over once the lease runs out.
                "PRESIGN_RECORDS_CLAIM_LEASE_SECONDS": "5",
            ])
        let user = "77"
        let bytes = NativeUploadsInProcessTests.payload(6 * NativeUploadsInProcessTests.mib)
        var uploads: [(id: String, key: String)] = []
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<5 {
            let server = try await ServerProcess(environment: env)
            for _ in 0..<2 {
                let created = try await NativeUploadsInProcessTests.create(
                    SocketTarget(port: server.port), size: bytes.count, user: user)
                uploads.append(
                    (try #require(created["uploadId"]?.stringValue), try #require(created["key"]?.stringValue)))
                for part in try NativeUploadsInProcessTests.parts(created) {
                    try await NativeUploadsInProcessTests.put(s3, part, bytes)
                }
            }
            // The janitor looks every second: killed before, during or after its completions.
            try await Task.sleep(for: .milliseconds(Int.random(in: 200...2_500, using: &rng)))
            server.signal(SIGKILL)
            _ = await server.exit()
        }
        let server = try await ServerProcess(environment: env)
        defer { server.stop() }
        var records: [String: String] = [:]
        for upload in uploads {
            var last = ""
            let done = await eventually(within: 60, pollMs: 250) {
                guard
                    let r = try? await UppyFlowTests.call(
                        SocketTarget(port: server.port), "GET", "/uploads/\(upload.id)", user: user),
                    let j = try? JSONValue(parsing: r.body),
                    {
                        last = r.text; return true
                    }(),
                    j["state"]?.stringValue == "completed",
                    let id = j["record"]?["id"]?.stringValue
                else { return false }
                records[upload.id] = id
                return true
            }
            #expect(done, "\(upload.id) not completed: \(last)")
        }
        #expect(Set(records.values).count == uploads.count, "one record per upload: \(records)")
        let listed = try await UppyFlowTests.call(
            SocketTarget(port: server.port), "GET", "/images?limit=100", user: user)
        let items = try #require(try JSONValue(parsing: listed.body)["items"]?.arrayValue)
        #expect(items.count == uploads.count, "\(listed.text)")
        let storage = try s3.client()
        for upload in uploads {
            let open = try storage.listMultipartUploads(
                prefix: upload.key, keyMarker: nil, uploadIdMarker: nil, maxUploads: 10)
            #expect(open.uploads.isEmpty, "\(upload.key) left open: \(open.uploads.map(\.uploadId))")
        }
        for id in records.values {
            _ = try await UppyFlowTests.call(SocketTarget(port: server.port), "DELETE", "/images/\(id)", user: user)
        }
    }

    /// An upload a server acknowledged: which API, its id and key.
    struct Acked: Sendable {
        let native: Bool
        let uploadId: String
        let key: String
    }

    /// The acknowledged creations of a run, and whether the creators stop (set at each kill).
    final class CreationLog: Sendable {
        let acked = Mutex<[Acked]>([])
        let stop = Atomic<Bool>(false)
    }

    /// Creates uploads through both APIs, alternately, until `log.stop`; the acknowledged ones go to the log.
    static func creator(port: Int, user: String, native: Bool, log: CreationLog) async {
        var useNative = native
        while !log.stop.load(ordering: .relaxed) {
            let r: WireResponse
            do {
                r =
                    useNative
                    ? try await UppyFlowTests.call(
                        SocketTarget(port: port), "POST", "/uploads", user: user,
                        body: #"{"type":"VIDEO","contentType":"video/mp4","size":6291456}"#)
                    : try await UppyFlowTests.call(
                        SocketTarget(port: port), "POST", "/s3/multipart", user: user,
                        body: #"{"filename":"v.mp4","type":"video/mp4","metadata":{"uploadType":"VIDEO"}}"#)
            } catch {
                return  // the server is gone
            }
            if r.status == 200 || r.status == 201, let j = try? JSONValue(parsing: r.body),
                let id = j["uploadId"]?.stringValue, let key = j["key"]?.stringValue
            {
                log.acked.withLock { $0.append(Acked(native: useNative, uploadId: id, key: key)) }
            }
            useNative.toggle()
        }
    }

    @Test(
        "kill -9 under creations through both APIs, 10 cycles: every acknowledged upload known, none open after the abort window"
    )
    func killNineUnderCreations() async throws {
        let s3 = try TestEnvironment.s3()
        let dir = Temporary.directory()
        let (env, _) = TestEnvironment.serverEnvironment(
            s3: s3,
            extra: [
                // A window longer than the cycles can last on a loaded host: an acknowledged upload
                // aborted for its age before the check below would read as lost. The last server
                // below closes the window to 60 s.
                "PRESIGN_RECORDS_URL": "sqlite:\(dir)/presignd.sqlite3", "PRESIGN_MULTIPART_ENABLED": "true",
                "PRESIGN_UPPY_ENABLED": "true", "PRESIGN_UPPY_ABORT_AFTER_SECONDS": "3600",
                "PRESIGN_RECORDS_JANITOR_INTERVAL_MS": "1000", "PRESIGN_LIMITS_ENABLED": "false",
            ])
        let user = String(Int.random(in: 100_000...999_999))
        let log = CreationLog()
        var rng = SystemRandomNumberGenerator()
        for cycle in 0..<10 {
            let server = try await ServerProcess(environment: env)
            log.stop.store(false, ordering: .relaxed)
            let before = log.acked.withLock { $0.count }
            let pause = Int.random(in: 50...500, using: &rng)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for w in 0..<4 {
                    group.addTask {
                        await Self.creator(port: server.port, user: user, native: w % 2 == 0, log: log)
                    }
                }
                group.addTask {
                    _ = await eventually(within: 60) { log.acked.withLock { $0.count } > before }
                    try await Task.sleep(for: .milliseconds(pause))
                    server.signal(SIGKILL)
                    _ = await server.exit()
                    log.stop.store(true, ordering: .relaxed)
                }
                try await group.waitForAll()
            }
            #expect(log.acked.withLock { $0.count } > before, "cycle \(cycle): nothing acknowledged")
        }
        let lastCreation = Date()
        let server = try await ServerProcess(environment: env)
        defer { server.stop() }  // idempotent: stopped below before the aborter starts
        // Nothing acknowledged is lost: every upload is known to the server that follows.
        let all = log.acked.withLock { $0 }
        for a in all {
            let path =
                a.native
                ? "/uploads/\(a.uploadId)"
                : "/s3/multipart/\(UppyFlowTests.q(a.uploadId))?key=\(UppyFlowTests.q(a.key))"
            let r = try await UppyFlowTests.call(SocketTarget(port: server.port), "GET", path, user: user)
            #expect(r.status == 200, "\(a): \(r.status) \(r.text)")
        }
        // After the abort window, nothing of this user's is open in RGW: the acknowledged uploads (the
        // ledger's) and those a kill cut short after storage made them (the noted keys').
        let storage = try s3.client()
        let ackedKeys = Set(all.map(\.key))
        let before = try storage.listMultipartUploads(
            prefix: "video/\(user)/", keyMarker: nil, uploadIdMarker: nil, maxUploads: 1000)
        let inDoubt = before.uploads.filter { !ackedKeys.contains($0.key) }.count
        server.stop()
        var closing = env
        closing["PRESIGN_UPPY_ABORT_AFTER_SECONDS"] = "60"
        let aborter = try await ServerProcess(environment: closing)
        defer { aborter.stop() }
        // Only waiting (the aborter's timer runs out): another heavy test takes this one's place meanwhile.
        let wait = 61 - Date().timeIntervalSince(lastCreation)
        if wait > 0 { try await Throttled.awayFromGate { try await Task.sleep(for: .seconds(wait)) } }
        var open: [String] = []
        let empty = await eventually(within: 60, pollMs: 500) {
            guard
                let page = try? storage.listMultipartUploads(
                    prefix: "video/\(user)/", keyMarker: nil, uploadIdMarker: nil, maxUploads: 1000)
            else { return false }
            open = page.uploads.map(\.key)
            return open.isEmpty
        }
        #expect(empty, "left open: \(open)")
        print(
            "native uploads: \(all.count) acknowledged creations over 10 kill -9 cycles, none lost; \(inDoubt) made "
                + "by storage but never acknowledged (a kill in between), none left open after the abort window")
    }
}
