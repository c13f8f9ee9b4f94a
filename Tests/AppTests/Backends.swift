import Foundation
import TestSupport

/// The two records backends the end-to-end tests run on.
enum Backend: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite, postgres

    var description: String { rawValue }

    /// A records URL of this backend that no other test uses: a SQLite file in `dir`, or a fresh
    /// PostgreSQL schema on PRESIGN_TEST_POSTGRES_URL (made with psql).
    func recordsURL(dir: String) throws -> String {
        switch self {
        case .sqlite:
            return "sqlite:\(dir)/presignd.sqlite3"
        case .postgres:
            guard let base = ProcessInfo.processInfo.environment["PRESIGN_TEST_POSTGRES_URL"], !base.isEmpty else {
                throw TestFailure(
                    "PRESIGN_TEST_POSTGRES_URL is not set: run the suite with scripts/test.sh, which starts PostgreSQL 15"
                )
            }
            let schema = "app_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
            p.arguments = [base, "-q", "-v", "ON_ERROR_STOP=1", "-c", "CREATE SCHEMA \(schema)"]
            p.standardOutput = FileHandle.nullDevice
            try p.run()
            p.waitUntilExit()
            guard p.terminationStatus == 0 else { throw TestFailure("psql could not create schema \(schema)") }
            return base + (base.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(schema)"
        }
    }

    /// `recordsURL(dir:)` on a thread of its own (PostgreSQL's schema is made by a `psql` process the
    /// calling thread would wait for), for async tests.
    func recordsURL(dir: String) async throws -> String {
        try await onThread { try self.recordsURL(dir: dir) }
    }
}
