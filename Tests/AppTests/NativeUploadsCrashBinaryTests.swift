import Foundation
import JSON
import ObjectStore
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The server's own completions of the native API's uploads across kill -9 (the binary, RGW, a SQLite
/// store kept across restarts): each cycle leaves uploads whose parts are all in storage and kills the
/// server at a random moment while its janitor may be completing them; once a server runs to the end,
/// every upload is completed once, with one record, and nothing is left open in RGW.
@Suite("Native uploads: kill -9 while the server completes", .serialized, .heavy)
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
}
