// records-bench: how many records per second become durable through GroupCommitter.
//
// Usage: records-bench <store URL> [threads=64] [maxBatch=256] [seconds=10]
// Each of `threads` threads inserts records with fresh keys one after another, each insert waiting until
// its batch has committed (as POST /images does), for `seconds`. Prints inserts/s, transactions,
// records per transaction and latency percentiles.
import Foundation
import Records

/// The store a URL names: `sqlite:<path>`, else a PostgreSQL URL handed to libpq as it is.
func storeLocation(_ url: String) -> StoreLocation {
    guard !url.hasPrefix("sqlite:") else { return .sqlite(path: String(url.dropFirst("sqlite:".count))) }
    return .postgres(
        PostgresAddress(connectionString: url, redacted: "PostgreSQL (the benchmark's URL)", passwords: []))
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: records-bench <store URL> [threads] [maxBatch] [seconds]\n".utf8))
    exit(2)
}
let url = arguments[1]
let threads = arguments.count > 2 ? Int(arguments[2]) ?? 64 : 64
let maxBatch = arguments.count > 3 ? Int(arguments[3]) ?? 256 : 256
let seconds = arguments.count > 4 ? Double(arguments[4]) ?? 10 : 10

let store: any RecordStore
do {
    store = try RecordStoreFactory.open(
        RecordStoreSettings(location: storeLocation(url), poolSize: 4, busyTimeoutMs: 5000))
    try store.migrate()
} catch {
    FileHandle.standardError.write(Data("cannot open the store: \(error)\n".utf8))
    exit(1)
}
let committer = GroupCommitter(store: store, maxBatch: maxBatch)

/// Per-thread results, merged at the end.
final class Results: @unchecked Sendable {
    let lock = NSLock()
    var latenciesMicros: [Double] = []
    var failures = 0
}
let results = Results()
let run = UUID().uuidString.lowercased().prefix(8)
let start = DispatchSemaphore(value: 0)
let done = DispatchGroup()
let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9) + 200_000_000
for thread in 0..<threads {
    done.enter()
    Thread {
        var latencies: [Double] = []
        var failures = 0
        start.wait()
        var n = 0
        while DispatchTime.now().uptimeNanoseconds < deadline {
            let key = UUID().uuidString.lowercased()
            let record = ImageRecord(
                id: UUID().uuidString.lowercased(), ownerId: "bench-\(run)-\(thread)", imageKey: key,
                objectKey: "images/\(key).jpg", type: "PROFILE", contentType: "image/jpeg", size: 123_456,
                etag: "\"0123456789abcdef0123456789abcdef\"", metadataJSON: #"{"w":1024,"h":768,"caption":"bench"}"#,
                createdAtMs: 1_700_000_000_000 + Int64(n))
            n += 1
            let t0 = DispatchTime.now().uptimeNanoseconds
            do {
                _ = try committer.insert(record)
                latencies.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1000)
            } catch {
                failures += 1
            }
        }
        results.lock.lock()
        results.latenciesMicros += latencies
        results.failures += failures
        results.lock.unlock()
        done.leave()
    }.start()
}
let transactionsBefore = store.committedTransactions
let t0 = DispatchTime.now().uptimeNanoseconds
for _ in 0..<threads { start.signal() }
done.wait()
let elapsed = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
committer.shutdown()
let transactions = store.committedTransactions - transactionsBefore
let sorted = results.latenciesMicros.sorted()
func percentile(_ p: Double) -> Double {
    sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}
let count = sorted.count
print(
    String(
        format: "threads=%d maxBatch=%d records=%d failures=%d seconds=%.2f inserts/s=%.0f transactions=%d "
            + "records/transaction=%.1f p50=%.2fms p99=%.2fms",
        threads, maxBatch, count, results.failures, elapsed, Double(count) / elapsed, transactions,
        Double(count) / Double(max(1, transactions)), percentile(0.5) / 1000, percentile(0.99) / 1000))
