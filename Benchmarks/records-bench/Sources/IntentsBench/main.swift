// IntentsBench: intents committed through IntentWriter.submit, as the issue routes submit them.
//
// Usage: IntentsBench <store URL> [count=200000] [batch=256] [inFlight=4096] [keys=fresh-v7]
// One thread submits `count` intents, keeping at most `inFlight` waiting (the requests an event loop
// holds), and waits for every outcome. `keys` is the kind of intent:
//   fresh-v7  the issue route's PROFILE intent: `delete/profile/<user>/<uuid>_<ms>.jpg` with a
//             time-ordered (version 7) UUID as the server draws it, a permanent key, `freshKey` set;
//   fresh-v7-created  the same, the UUID's time the time of issue (each row also in the expiry index:
//             the layout's alternative, for comparison);
//   fresh-v4  the same with a random (version 4) UUID (what builds before the rows layout drew);
//   client    client B's intent: its own random UUID as the key, a content type, `freshKey` unset.
// Prints one JSON line: intents/s, commits, intents per commit, outcomes, the process's RSS before
// opening the store, after opening it and at the end, and the store's own open time (migrate included).
//
// Under callgrind, the writer thread's instructions per intent (docs/records.md, Benchmarks/intent_cost.sh):
//   valgrind --tool=callgrind --separate-threads=yes IntentsBench <url> 20000
// then the writer thread's total of a 20,000- and a 10,000-intent run, differenced, over 10,000.
// Also fills a SQLite file with live intents for a server's start-up and RSS.
import Foundation
import Records

/// The store a URL names: `sqlite:<path>`, else a PostgreSQL URL handed to libpq as it is.
func storeLocation(_ url: String) -> StoreLocation {
    guard !url.hasPrefix("sqlite:") else { return .sqlite(path: String(url.dropFirst("sqlite:".count))) }
    return .postgres(
        PostgresAddress(connectionString: url, redacted: "PostgreSQL (the benchmark's URL)", passwords: []))
}

/// The process's resident set, in KiB (VmRSS).
func rssKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? -1
    }
    return -1
}

/// A UUID string of 16 random bytes, version 4, or version 7 with `millis` in its first 48 bits and
/// `sequence` in its 12 `rand_a` bits (as the server draws a key's UUID: `Issuer.keyUUID`).
func uuid(millis: Int64?, sequence: Int = 0) -> String {
    var bytes = (0..<16).map { _ in UInt8.random(in: 0...255) }
    if let millis {
        for i in 0..<6 { bytes[i] = UInt8(truncatingIfNeeded: millis >> (40 - 8 * Int64(i))) }
        bytes[6] = 0x70 | UInt8(truncatingIfNeeded: sequence >> 8) & 0x0f
        bytes[7] = UInt8(truncatingIfNeeded: sequence)
    } else {
        bytes[6] = bytes[6] & 0x0f | 0x40
    }
    bytes[8] = bytes[8] & 0x3f | 0x80
    let hex = bytes.map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }
    return [hex[0..<4], hex[4..<6], hex[6..<8], hex[8..<10], hex[10..<16]].map { $0.joined() }.joined(separator: "-")
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: IntentsBench <store URL> [count] [batch] [inFlight] [keys]\n".utf8))
    exit(2)
}
let url = arguments[1]
let count = arguments.count > 2 ? Int(arguments[2]) ?? 200_000 : 200_000
let batch = arguments.count > 3 ? Int(arguments[3]) ?? 256 : 256
let inFlightLimit = arguments.count > 4 ? Int(arguments[4]) ?? 4096 : 4096
let keys = arguments.count > 5 ? arguments[5] : "fresh-v7"
guard ["fresh-v7", "fresh-v7-created", "fresh-v4", "client"].contains(keys) else {
    FileHandle.standardError.write(Data("keys must be fresh-v7, fresh-v7-created, fresh-v4 or client\n".utf8))
    exit(2)
}

let rssStart = rssKiB()
let openStart = Date()
let store: any RecordStore
do {
    store = try RecordStoreFactory.open(
        RecordStoreSettings(location: storeLocation(url), poolSize: 8, busyTimeoutMs: 5000))
    try store.migrate()
} catch {
    FileHandle.standardError.write(Data("cannot open the store: \(error)\n".utf8))
    exit(1)
}
let openSeconds = Date().timeIntervalSince(openStart)
let rssOpen = rssKiB()
// Made before the writer starts, so that submitting is quick and batches fill as under load.
let made: [UploadIntent] = (0..<count).map { n in
    let now = Int64(Date().timeIntervalSince1970 * 1000)
    if keys == "client" {
        let key = uuid(millis: nil)
        return UploadIntent(
            ownerId: "client-\(n % 1000)", imageKey: key, objectKey: key, permanentKey: nil, type: "IMAGE",
            contentType: "image/jpeg", allowedContentTypes: ["image/jpeg"], maxBytes: 10_485_760, createdAtMs: now,
            expiresAtMs: now + 600_000)
    }
    // The issue route's key: the UUID's time is the URL's expiry to the millisecond, the intent's expiry
    // that time rounded down to the second (`Issuer.keyUUID`).
    let millis: Int64? = keys == "fresh-v7" ? now + 600_000 : keys == "fresh-v7-created" ? now : nil
    let id = uuid(millis: millis, sequence: n)
    let expires = keys == "fresh-v7" ? now / 1000 * 1000 + 600_000 : now + 600_000
    let user = "user-\(n % 1000)"
    return UploadIntent(
        ownerId: user, imageKey: "delete/profile/\(user)/\(id)_\(now).jpg",
        objectKey: "delete/profile/\(user)/\(id)_\(now).jpg", permanentKey: "profile/\(user)/origin/\(id)_\(now).jpg",
        type: "PROFILE", contentType: nil, allowedContentTypes: ["image/jpeg", "image/png", "image/webp"],
        maxBytes: 10_485_760, createdAtMs: now, expiresAtMs: expires, freshKey: true)
}
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
let commitsBefore = store.committedTransactions
let start = Date()
for intent in made {
    slots.wait()
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
    "count": count, "batch": batch, "in_flight": inFlightLimit, "keys": keys,
    "seconds": (seconds * 1000).rounded() / 1000, "intents_per_s": Int(Double(count) / seconds), "commits": commits,
    "intents_per_commit": commits > 0 ? Double(count) / Double(commits) : 0, "stored": tally.stored,
    "not_stored": tally.other, "rss_start_kib": rssStart, "rss_open_kib": rssOpen, "rss_end_kib": rssKiB(),
    "open_seconds": (openSeconds * 1000).rounded() / 1000,
]
let json = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
print(String(decoding: json, as: UTF8.self))
exit(tally.other == 0 ? 0 : 1)
