// PresignBench: how many presigned URLs one thread makes per second (docs/sigv4.md).
//
// Usage: PresignBench [count] [--threads T] [--only host|content-type]
//   count      presigns per variant (default 2,000,000)
//   --threads  also run T threads sharing one Presigner (the event-loop layout)
//   --only     run one variant and nothing else (for `perf stat`)
// Build with `swift build -c release`; pin with `taskset -c 1` for stable figures.
import Crypto
import Dispatch
import Glibc
import SigV4
import System

/// Monotonic seconds (System's clock).
func monotonicSeconds() -> Double { Double(MonotonicClock.nanoseconds()) / 1e9 }

/// Seconds on `clock` (the CPU-time clocks).
func seconds(_ clock: clockid_t) -> Double {
    var time = timespec()
    clock_gettime(clock, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Wall-clock and this thread's CPU time, read together.
struct Stopwatch {
    let wall = monotonicSeconds()
    let cpu = seconds(CLOCK_THREAD_CPUTIME_ID)
}

/// Reports one measurement: wall-clock rate, and the rate on CPU time (what the thread would do
/// with a core to itself; the two differ when other processes share the core).
func report(_ name: String, count: Int, since start: Stopwatch, checksum: Int) {
    let wall = monotonicSeconds() - start.wall
    let cpu = seconds(CLOCK_THREAD_CPUTIME_ID) - start.cpu
    func rate(_ seconds: Double) -> String { String(Int((Double(count) / seconds).rounded())) }
    func cost(_ seconds: Double) -> String { String(Int((seconds / Double(count) * 1e9).rounded())) }
    print(
        "\(name): \(count) in \(String(wall).prefix(5)) s wall = \(rate(wall))/s, \(cost(wall)) ns each; "
            + "CPU \(String(cpu).prefix(5)) s = \(rate(cpu))/s, \(cost(cpu)) ns each (checksum \(checksum))")
}

var count = 2_000_000
var threads = 0
var only: String?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    if argument == "--threads", let value = arguments.popFirst().flatMap({ Int($0) }) {
        threads = value
    } else if argument == "--only", let value = arguments.popFirst() {
        only = value
    } else if let value = Int(argument.filter { $0 != "_" && $0 != "," }) {
        count = value
    } else {
        print("usage: PresignBench [count] [--threads T] [--only host|content-type]")
        exit(2)
    }
}

let presigner = try Presigner(
    credentials: Credentials(
        accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: Secret("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")),
    region: "ap-northeast-2", endpoint: Endpoint(parsing: "https://s3.ap-northeast-2.amazonaws.com"), addressing: .path)

// Client P's keys: delete/profile/{userId}/{uuid}_{epochMillis}.jpg, made before timing.
let startTime: Int64 = 1_795_942_771
let keys: [String] = try (0..<1024).map { index in
    "delete/profile/\(1000 + index)/\(try UUIDv4.random())_\(startTime * 1000 + Int64(index)).jpg"
}
let hostOnly = keys.map { PresignRequest(method: "PUT", bucket: "uploads", key: $0, expires: 600) }
let withContentType = keys.map {
    PresignRequest(
        method: "PUT", bucket: "uploads", key: $0, expires: 600,
        signedHeaders: [(name: "content-type", value: "image/jpeg")])
}

/// Presigns `count` requests from `requests` in turn, the clock advancing one second every 10,000.
func run(_ requests: [PresignRequest], count: Int) throws -> Int {
    var checksum = 0
    for index in 0..<count {
        let presigned = try presigner.presign(requests[index & 1023], now: startTime + Int64(index / 10_000))
        checksum &+= presigned.url.utf8.count
    }
    return checksum
}

if let only {
    let checksum = try run(only == "host" ? hostOnly : withContentType, count: count)
    print("\(only): \(count) presigns (checksum \(checksum))")
    exit(0)
}

print("PresignBench: \(count) presigns per variant; one example URL:")
print(try presigner.presign(hostOnly[0], now: startTime).url)
for (name, requests) in [("host only (client P)", hostOnly), ("content-type signed (client B)", withContentType)] {
    _ = try run(requests, count: count / 20)  // warm-up
    let start = Stopwatch()
    let checksum = try run(requests, count: count)
    report(name, count: count, since: start, checksum: checksum)
}

// The primitives inside one URL, for the record.
let canonicalRequest = [UInt8](repeating: UInt8(ascii: "a"), count: 420)
let stringToSign = [UInt8](repeating: UInt8(ascii: "b"), count: 136)
let hmacKey = HMACKey(key: [UInt8](repeating: 7, count: 32))
var sink: UInt8 = 0
var start = Stopwatch()
for _ in 0..<count { sink ^= SHA256.hash(canonicalRequest).withUnsafeBytes { $0[0] } }
report("SHA-256 of 420 bytes", count: count, since: start, checksum: Int(sink))
start = Stopwatch()
for _ in 0..<count { sink ^= hmacKey.authenticate(stringToSign).withUnsafeBytes { $0[0] } }
report("HMAC-SHA256 of 136 bytes (prepared key)", count: count, since: start, checksum: Int(sink))

if threads > 0 {
    let perThread = count / threads
    let wallStart = monotonicSeconds()
    var cpuStart = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpuStart)
    DispatchQueue.concurrentPerform(iterations: threads) { _ in
        _ = try? run(hostOnly, count: perThread)
    }
    let wall = monotonicSeconds() - wallStart
    let cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - (Double(cpuStart.tv_sec) + Double(cpuStart.tv_nsec) / 1e9)
    let total = Double(perThread * threads)
    print(
        "host only, \(threads) threads sharing one Presigner: \(Int(total / wall))/s wall in all, "
            + "\(Int(cpu / total * 1e9)) ns CPU each")
}
