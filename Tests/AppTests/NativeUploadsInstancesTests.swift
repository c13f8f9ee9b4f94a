import Foundation
import JSON
import TestSupport
import Testing

/// The native multipart API across three instances on one PostgreSQL and RGW behind HAProxy: uploads
/// whose parts are all in storage are completed by their clients on every instance at once while the
/// janitor's holder completes them too; each is completed once, with one record.
@Suite("Native uploads across instances behind HAProxy", .serialized, .heavy(aloneSeconds: 30))
struct NativeUploadsInstancesTests {
    static let mib = 1024 * 1024

    @Test("six uploads, each completed on all three instances at once and by the server: one record each")
    func completedOnce() async throws {
        let harness = try await InstancesHarness.start(extra: [
            "PRESIGN_MULTIPART_ENABLED": "true", "PRESIGN_MULTIPART_AUTO_COMPLETE_AFTER_SECONDS": "0",
            "PRESIGN_MULTIPART_CHECK_EVERY_SECONDS": "1", "PRESIGN_RECORDS_JANITOR_INTERVAL_MS": "1000",
        ])
        defer { harness.stop() }
        let s3 = try TestEnvironment.s3()
        let ports = try (0..<3).map { try harness.instancePort($0) }
        let user = String(Int.random(in: 100_000...999_999))
        let bytes = NativeUploadsInProcessTests.payload(6 * Self.mib)
        var ids: [String] = []
        for _ in 0..<6 {
            let created = try await NativeUploadsInProcessTests.create(
                SocketTarget(port: harness.port), size: bytes.count, user: user)
            ids.append(try #require(created["uploadId"]?.stringValue))
            for part in try NativeUploadsInProcessTests.parts(created) {
                try await NativeUploadsInProcessTests.put(s3, part, bytes)
            }
        }
        // Every upload completed on the three instances at once (the janitor's holder may be first).
        let answers = try await withThrowingTaskGroup(of: (String, Int, String?).self) { group in
            for id in ids {
                for port in ports {
                    group.addTask {
                        let r = try await UppyFlowTests.call(
                            SocketTarget(port: port), "POST", "/uploads/\(id)/complete", user: user, body: "{}")
                        let record = try? JSONValue(parsing: r.body)["record"]?["id"]?.stringValue
                        return (id, r.status, record ?? (r.status == 200 ? nil : r.text))
                    }
                }
            }
            var out: [(String, Int, String?)] = []
            for try await a in group { out.append(a) }
            return out
        }
        for id in ids {
            let mine = answers.filter { $0.0 == id }
            #expect(mine.allSatisfy { $0.1 == 200 }, "\(mine)")
            #expect(Set(mine.compactMap(\.2)).count == 1, "one record for \(id): \(mine)")
        }
        let listed = try await UppyFlowTests.call(
            SocketTarget(port: harness.port), "GET", "/images?limit=100", user: user)
        let records = try #require(try JSONValue(parsing: listed.body)["items"]?.arrayValue)
        #expect(records.count == ids.count, "\(listed.text)")
        #expect(Set(records.compactMap { $0["id"]?.stringValue }) == Set(answers.compactMap(\.2)))
        for id in ids {
            let status = try JSONValue(
                parsing: try await UppyFlowTests.call(
                    SocketTarget(port: harness.port), "GET", "/uploads/\(id)", user: user
                )
                .body)
            #expect(status["state"]?.stringValue == "completed")
        }
    }
}
