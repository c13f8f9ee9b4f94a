// IntentsBench: intents committed through IntentWriter.submit, as the issue route will submit them.
//
// Usage: IntentsBench <store URL> [count=200000] [batch=256] [inFlight=4096]
// One thread submits `count` intents with fresh UUID keys, keeping at most `inFlight` waiting (the
// requests an event loop holds), and waits for every outcome. Prints one JSON line: intents/s, commits,
// intents per commit, outcomes, the process's RSS before opening the store, after opening it and at
// the end (SQLite: with `count` live intents in the index), and the store's own open time.
//
// Under callgrind, the writer thread's instructions per intent (docs/records.md):
//   valgrind --tool=callgrind --toggle-collect='*IntentWriterC3run*' IntentsBench <url> 20000
// then divide the total by the count. Also fills a SQLite file with live intents for a server's RSS.
import Foundation
import Records

/// The process's resident set, in KiB (VmRSS).
func rssKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? -1
    }
    return -1
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: IntentsBench <store URL> [count] [batch] [inFlight]\n".utf8))
    exit(2)
}
let url = arguments[1]
let count = arguments.count > 2 ? Int(arguments[2]) ?? 200_000 : 200_000
let batch = arguments.count > 3 ? Int(arguments[3]) ?? 256 : 256
let inFlightLimit = arguments.count > 4 ? Int(arguments[4]) ?? 4096 : 4096

let rssStart = rssKiB()
let openStart = Date()
let store: any RecordStore
do {
    store = try RecordStoreFactory.open(url: url, poolSize: 8, busyTimeoutMs: 5000)
    try store.migrate()
} catch {
    FileHandle.standardError.write(Data("cannot open the store: \(error)\n".utf8))
    exit(1)
}
let openSeconds = Date().timeIntervalSince(openStart)
let rssOpen = rssKiB()
let writer = IntentWriter(store: store, batchSize: batch, maxPending: max(batch, inFlightLimit), maxWaitMs: 60_000) {
    error in FileHandle.standardError.write(Data("\(error)\n".utf8))
}

/// Outcomes, counted from the writer's threads.
final class Tally: @unchecked Sendable {
    let lock = NSCondition()
    var stored = 0
    var other = 0
    var done: Int { stored + other }
}
let tally = Tally()
let slots = DispatchSemaphore(value: inFlightLimit)
let run = UUID().uuidString.lowercased().prefix(8)
let commitsBefore = store.committedTransactions
let start = Date()
for n in 0..<count {
    slots.wait()
    let key = UUID().uuidString.lowercased()
    let intent = UploadIntent(
        ownerId: "bench-\(run)", imageKey: key, objectKey: "delete/profile/\(key).jpg", permanentKey: nil,
        type: "PROFILE", contentType: "image/jpeg", allowedContentTypes: ["image/jpeg"], maxBytes: 10_485_760,
        createdAtMs: 1_700_000_000_000 + Int64(n), expiresAtMs: 4_000_000_000_000)
    writer.submit(intent) { outcome in
        tally.lock.withLock {
            if outcome == .stored { tally.stored += 1 } else { tally.other += 1 }
            if tally.done == count { tally.lock.broadcast() }
        }
        slots.signal()
    }
}
tally.lock.withLock {
    while tally.done < count { tally.lock.wait() }
}
let seconds = Date().timeIntervalSince(start)
let commits = store.committedTransactions - commitsBefore
writer.shutdown()
let result: [String: Any] = [
    "count": count, "batch": batch, "in_flight": inFlightLimit, "seconds": (seconds * 1000).rounded() / 1000,
    "intents_per_s": Int(Double(count) / seconds), "commits": commits,
    "intents_per_commit": commits > 0 ? Double(count) / Double(commits) : 0, "stored": tally.stored,
    "not_stored": tally.other, "rss_start_kib": rssStart, "rss_open_kib": rssOpen, "rss_end_kib": rssKiB(),
    "open_seconds": (openSeconds * 1000).rounded() / 1000,
]
let json = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
print(String(decoding: json, as: UTF8.self))
exit(tally.other == 0 ? 0 : 1)
