import Config
import HTTP1
import HTTPServer
import Synchronization
import Testing

@testable import App

/// A clock the test moves by hand.
final class ManualClock: Sendable {
    private let ms = Atomic<Int64>(1_000_000)
    func advance(_ d: Int64) { ms.wrappingAdd(d, ordering: .relaxed) }
    var now: Int64 { ms.load(ordering: .relaxed) }
}

@Suite("Rate limiter (token bucket, injected clock)")
struct RateLimiterTests {
    @Test("a burst is allowed, the next request waits, and tokens come back at the configured rate")
    func bucket() {
        let clock = ManualClock()
        let limiter = RateLimiter(perMinute: 60, burst: 3, now: { clock.now })
        #expect(limiter.check("u") == .allowed)
        #expect(limiter.check("u") == .allowed)
        #expect(limiter.check("u") == .allowed)
        #expect(limiter.check("u") == .limited(retryAfterSeconds: 1))
        #expect(limiter.check("other") == .allowed, "keys are independent")
        clock.advance(999)
        #expect(limiter.check("u") == .limited(retryAfterSeconds: 1))
        clock.advance(2)
        #expect(limiter.check("u") == .allowed)
        #expect(limiter.check("u") == .limited(retryAfterSeconds: 1))
        clock.advance(10_000)
        for _ in 0..<3 { #expect(limiter.check("u") == .allowed) }  // refilled only up to the burst
        #expect(limiter.check("u") != .allowed)
    }

    @Test("Retry-After reflects a slow rate")
    func retryAfter() {
        let clock = ManualClock()
        let limiter = RateLimiter(perMinute: 2, burst: 1, now: { clock.now })
        #expect(limiter.check("k") == .allowed)
        #expect(limiter.check("k") == .limited(retryAfterSeconds: 30))
        clock.advance(20_000)
        #expect(limiter.check("k") == .limited(retryAfterSeconds: 10))
    }

    @Test("memory stays bounded under a flood of distinct keys")
    func bounded() {
        let clock = ManualClock()
        let limiter = RateLimiter(perMinute: 60, burst: 5, maxKeys: 1600, now: { clock.now })
        for i in 0..<50_000 {
            _ = limiter.check("ip-\(i)")
            if i % 1000 == 0 { clock.advance(1) }
        }
        #expect(limiter.trackedKeys <= 1600)
    }

    @Test("a flood of new keys cannot evict a limited bucket: new keys are refused until room comes back")
    func floodCannotResetALimit() {
        let clock = ManualClock()
        // 16 shards of 4 buckets; 60/min, burst 2: an emptied bucket is full again after 2 s.
        let limiter = RateLimiter(perMinute: 60, burst: 2, maxKeys: 64, now: { clock.now })
        #expect(limiter.check("victim") == .allowed)
        #expect(limiter.check("victim") == .allowed)
        #expect(limiter.check("victim") == .limited(retryAfterSeconds: 1))
        var refused = 0
        for i in 0..<5_000 {
            switch limiter.check("attacker-\(i)") {
            case .allowed: continue
            case .limited(let after):
                refused += 1
                #expect(after >= 1 && after <= 2, "until the first refilling bucket is full")
            }
        }
        #expect(refused > 4_000, "the table is full of refilling buckets: new keys wait")
        #expect(limiter.trackedKeys <= 64)
        #expect(limiter.check("victim") == .limited(retryAfterSeconds: 1), "the flood did not reset it")
        clock.advance(999)
        #expect(limiter.check("victim") == .limited(retryAfterSeconds: 1))
        clock.advance(2)
        #expect(limiter.check("victim") == .allowed, "one token back after a second, as without the flood")
        #expect(limiter.check("victim") == .limited(retryAfterSeconds: 1))
        // Once the flood's buckets are full again they are forgotten and new keys get in.
        clock.advance(2_001)
        #expect(limiter.check("newcomer") == .allowed)
    }

    /// A request from `peer` with these `X-Forwarded-For` header lines.
    static func request(peer: String, forwardedFor: [String]) throws -> Request {
        var head = "GET /presigned-url HTTP/1.1\r\nHost: presignd\r\n"
        for line in forwardedFor { head += "X-Forwarded-For: \(line)\r\n" }
        guard case .complete(let parsed, _) = RequestParser.parseHead(Array((head + "\r\n").utf8)) else {
            throw TestFailure("test request does not parse")
        }
        return Request(head: parsed, body: [], pathParameters: [], requestId: "t", peer: peer)
    }

    struct TestFailure: Error { let message: String; init(_ m: String) { message = m } }

    @Test(
        "X-Forwarded-For counts only from a trusted proxy, and the client is the last hop not trusted",
        arguments: [
            // No proxies trusted: the peer, whatever the header says.
            ([String](), "203.0.113.9:4000", ["1.1.1.1"], "203.0.113.9"),
            // The peer is not a trusted proxy: its header is its own word.
            (["10.0.0.0/8"], "203.0.113.9:4000", ["1.1.1.1"], "203.0.113.9"),
            // A trusted proxy appended the caller's address.
            (["10.0.0.0/8"], "10.0.0.2:4000", ["198.51.100.7"], "198.51.100.7"),
            // A forged hop left of the appended one is skipped over.
            (["10.0.0.0/8"], "10.0.0.2:4000", ["6.6.6.6, 198.51.100.7"], "198.51.100.7"),
            // Two trusted proxies in a row (the inner one's address is in the header too), and two header lines.
            (["10.0.0.0/8", "::1"], "[::1]:4000", ["6.6.6.6, 198.51.100.7", "10.9.9.9"], "198.51.100.7"),
            // Every hop trusted: the first one.
            (["10.0.0.0/8"], "10.0.0.2:4000", ["10.1.1.1, 10.2.2.2"], "10.1.1.1"),
            // A trusted proxy but no header: the peer.
            (["10.0.0.0/8"], "10.0.0.2:4000", [], "10.0.0.2"),
            // An IPv4-mapped peer counts as its IPv4 address.
            (["127.0.0.1"], "[::ffff:127.0.0.1]:4000", ["192.0.2.1"], "192.0.2.1"),
        ])
    func clientAddress(trusted: [String], peer: String, forwardedFor: [String], expected: String) throws {
        let gate = Gate(
            callers: DevelopmentCallerResolver(header: "X-User-Id", defaultUserId: "1"), issue: nil, confirm: nil,
            trustedProxies: trusted.compactMap(AddressRange.init))
        #expect(gate.clientAddress(try Self.request(peer: peer, forwardedFor: forwardedFor)) == expected)
    }
}
