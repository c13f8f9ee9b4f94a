import Foundation
import TestSupport

/// Clients that send requests through HAProxy until stopped, each on its own keep-alive connection
/// (a new one after a broken one), and keep count of the answers.
final class SteadyLoad: @unchecked Sendable {
    private let lock = NSLock()
    private var okCount = 0
    private var failed: [String] = []
    private var stopping = false
    private let group = DispatchGroup()

    /// Answers that were what `request` expects.
    var ok: Int { lock.withLock { okCount } }
    /// Every other outcome (status and body, or a broken connection).
    var failures: [String] { lock.withLock { failed } }

    /// Starts `clients` clients on `port`, each sending `request(client, n)` and expecting `expected`.
    init(port: Int, clients: Int, expected: Set<Int> = [200], request: @escaping @Sendable (Int, Int) -> String) {
        for client in 0..<clients {
            DispatchQueue.global().async(group: group) { [self] in
                var connection: RawClient?
                var n = 0
                while !lock.withLock({ stopping }) {
                    n += 1
                    if connection == nil { connection = try? RawClient(port: port, timeoutMs: 15_000) }
                    guard let c = connection else {
                        note(nil, "could not connect to HAProxy")
                        usleep(10_000)
                        continue
                    }
                    c.send(request(client, n))
                    guard let r = c.readResponse() else {
                        note(nil, "connection broken without an answer")
                        connection = nil
                        continue
                    }
                    note(expected.contains(r.status) ? r : nil, "\(r.status) \(r.text.prefix(300))")
                    if r.header("Connection")?.lowercased() == "close" { connection = nil }
                }
            }
        }
    }

    private func note(_ good: RawClient.Response?, _ what: String) {
        lock.withLock {
            if good != nil { okCount += 1 } else { failed.append(what) }
        }
    }

    /// Waits (up to `seconds`) until `count` more answers were good than `from`; false if not.
    func waitForOK(atLeast count: Int, from: Int, seconds: Double = 60) async -> Bool {
        await eventually(within: seconds) { ok >= from + count }
    }

    /// Stops the clients after their current request and waits for them.
    func stop() {
        lock.withLock { stopping = true }
        group.wait()
    }

    /// `stop()`, waited for on a thread of its own.
    func stopping() async {
        _ = try? await onThread { [self] in stop() }
    }
}
