import CloudCredentials
import HTTPClient
import SigV4
import Synchronization
import Testing

/// The outside world of a credentials test: a settable clock, files in memory, recorded sleeps,
/// a fixed random source, and a transport that refuses every address but 127.0.0.1.
///
/// Every context it makes turns IMDS off unless the test sets its own `AWS_EC2_METADATA_*`
/// variables, so no test path can reach 169.254.169.254 or any cloud endpoint.
final class TestWorld: Sendable {
    /// 2026-11-29T08:59:31Z.
    static let start: Int64 = 1_795_942_771

    /// The clock, epoch seconds.
    private let clock = Mutex<Int64>(TestWorld.start)
    /// Files by path.
    private let files = Mutex<[String: [UInt8]]>([:])
    /// Every sleep asked for, in milliseconds.
    private let sleeps = Mutex<[Int]>([])
    /// Addresses a request was refused for (anything but loopback).
    private let refused = Mutex<[String]>([])
    /// What `random` returns, clamped to its bound.
    private let randomValue = Mutex<Int>(0)

    /// A world with the clock at `start`.
    init() {}

    /// The time now.
    var now: Int64 { clock.withLock { $0 } }

    /// Moves the clock.
    func advance(_ seconds: Int64) { clock.withLock { $0 += seconds } }

    /// Sets the clock.
    func set(_ time: Int64) { clock.withLock { $0 = time } }

    /// Makes `random` return `value` (clamped to each call's bound).
    func setRandom(_ value: Int) { randomValue.withLock { $0 = value } }

    /// Writes (or replaces) a file.
    func write(_ path: String, _ text: String) { files.withLock { $0[path] = Array(text.utf8) } }

    /// Removes a file.
    func remove(_ path: String) { _ = files.withLock { $0.removeValue(forKey: path) } }

    /// The sleeps so far.
    var recordedSleeps: [Int] { sleeps.withLock { $0 } }

    /// Non-loopback addresses something tried to reach.
    var refusedAddresses: [String] { refused.withLock { $0 } }

    /// A context over `environment`; IMDS is disabled unless an `AWS_EC2_METADATA_` variable is given.
    func context(_ environment: [String: String]) -> CredentialsContext {
        var environment = environment
        if !environment.keys.contains(where: { $0.hasPrefix("AWS_EC2_METADATA_") }) {
            environment["AWS_EC2_METADATA_DISABLED"] = "true"
        }
        return CredentialsContext(
            environment: environment,
            readFile: { [self] path throws(CredentialsError) in
                guard let bytes = files.withLock({ $0[path] }) else {
                    throw .file(provider: "file", path: path, reason: "No such file or directory")
                }
                return bytes
            },
            now: { [self] in now },
            random: { [self] upper in min(randomValue.withLock { $0 }, upper) },
            sleep: { [self] milliseconds in sleeps.withLock { $0.append(milliseconds) } },
            makeTransport: { [self] options in LoopbackOnlyTransport(HTTPClient(options: options), world: self) })
    }

    /// Records a refused address.
    fileprivate func refuse(_ address: ServerAddress) {
        refused.withLock { $0.append("\(address)") }
    }
}

/// Passes requests to 127.0.0.1 on to a real `HTTPClient`; refuses (and records as a test issue)
/// anything else, so a mistake can never send a request to a cloud address.
struct LoopbackOnlyTransport: CredentialsTransport {
    /// The real client.
    let client: HTTPClient
    /// Where refusals are recorded.
    let world: TestWorld

    /// Wraps `client`.
    init(_ client: HTTPClient, world: TestWorld) {
        self.client = client
        self.world = world
    }

    /// Sends to loopback only.
    func send(_ request: HTTPRequest, to address: ServerAddress) throws(HTTPClientError) -> HTTPResponse {
        guard address.host == "127.0.0.1" else {
            world.refuse(address)
            Issue.record("a test tried to reach \(address)")
            throw .connection("the test transport refuses \(address)")
        }
        return try client.send(request, to: address)
    }
}

/// Fast limits for tests: 300 ms exchanges, `retries` retries.
func fastRemote(retries: Int = 2, requestTimeoutMs: Int = 300) -> RemoteProviderOptions {
    RemoteProviderOptions(connectTimeoutMs: 300, requestTimeoutMs: requestTimeoutMs, maxRetries: retries)
}

/// An RFC 3339 time for epoch seconds, as the services write it (from SigV4's `AmzDate`, an
/// implementation independent of the one under test).
func rfc3339(_ epochSeconds: Int64, fraction: String = "") -> String {
    let date = AmzDate(epochSeconds: epochSeconds)
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    let year = String(date.year)
    return "\(year)-\(two(date.month))-\(two(date.day))T\(two(date.hour)):\(two(date.minute)):\(two(date.second))"
        + fraction + "Z"
}
