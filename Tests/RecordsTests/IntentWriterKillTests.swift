import Foundation
import RecordsTestSupport
import Synchronization
import TestSupport
import Testing

@testable import Records

#if canImport(Glibc)
    import Glibc
#endif

/// A kill -9 of a process writing intents through the writer: every intent it was told `.stored`
/// (what it would have answered 200) is in the store afterwards. The child is this test binary run
/// again with one test selected and the store's URL in its environment.
@Suite(.blocking) struct IntentWriterKillTests {
    /// The environment variable that makes `childWritesUntilKilled` run (and names its store).
    static let childURLVariable = "PRESIGN_INTENT_CHILD_URL"

    @Test(arguments: StoreKind.databases.filter { $0 != .pgbouncer })
    func everyIntentToldStoredSurvivesAKill9(kind: StoreKind) throws {
        let url: String
        let cleanup: () -> Void
        switch kind {
        case .postgres:
            (url, cleanup) = try PostgresTestDatabase.freshSchema()
        default:
            let directory = NSTemporaryDirectory() + "records-kill-\(UUID().uuidString)"
            url = "sqlite:\(directory)/records.db"
            cleanup = { try? FileManager.default.removeItem(atPath: directory) }
        }
        defer { cleanup() }
        // Migrated here, so the child only writes.
        try RecordStoreFactory.open(url: url, poolSize: 1, busyTimeoutMs: 5000).migrate()

        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = [
            "--testing-library", "swift-testing", "--filter", "IntentWriterKillTests/childWritesUntilKilled",
        ]
        var environment = ProcessInfo.processInfo.environment
        environment[Self.childURLVariable] = url
        child.environment = environment
        let output = Pipe()
        child.standardOutput = output
        child.standardError = FileHandle.nullDevice
        try child.run()

        // Read what the child was told stored until it has told 3,000, then kill it mid-stream.
        var text = ""
        let deadline = Date().addingTimeInterval(120)
        var told = 0
        while told < 3_000 && Date() < deadline && child.isRunning {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
            told = text.components(separatedBy: "STORED ").count - 1
        }
        kill(child.processIdentifier, SIGKILL)
        // What it wrote before dying is still in the pipe: read to the end.
        text += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        #expect(child.terminationReason == .uncaughtSignal)

        let keys = text.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("STORED "), line.count == 7 + 36 else { return nil }  // a cut last line is not counted
            return String(line.dropFirst(7))
        }
        #expect(keys.count >= 3_000)
        let store = try RecordStoreFactory.open(url: url, poolSize: 2, busyTimeoutMs: 5000)
        var missing = 0
        for key in keys where try store.intent(imageKey: key) == nil { missing += 1 }
        #expect(missing == 0, "\(missing) of \(keys.count) intents told stored were lost")
    }

    /// The child: submits intents from 4 threads as fast as the writer takes them and prints the key of
    /// each one it is told `.stored`, until it is killed (or, on its own, after 60 s).
    @Test(.enabled(if: ProcessInfo.processInfo.environment[Self.childURLVariable] != nil))
    func childWritesUntilKilled() throws {
        let url = try #require(ProcessInfo.processInfo.environment[Self.childURLVariable])
        let store = try RecordStoreFactory.open(url: url, poolSize: 2, busyTimeoutMs: 5000)
        let writer = IntentWriter(store: store, batchSize: 256, maxPending: 10_000) { _ in }
        let printing = Mutex<Void>(())
        let end = Date().addingTimeInterval(60)
        runConcurrently(4) { _ in
            let inFlight = DispatchSemaphore(value: 512)  // a bounded number of waiting "requests" per thread
            while Date() < end {
                inFlight.wait()
                let intent = Sample.intent()
                writer.submit(intent) { outcome in
                    if outcome == .stored {
                        let line = Array("STORED \(intent.imageKey)\n".utf8)
                        printing.withLock { _ in _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) } }
                    }
                    inFlight.signal()
                }
            }
        }
        writer.shutdown()
    }
}
