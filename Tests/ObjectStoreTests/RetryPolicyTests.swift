import Testing

@testable import ObjectStore

/// Backoff caps and jitter ("Exponential Backoff And Jitter", AWS Architecture Blog, 2015: full
/// jitter is `random(0, min(cap, base * 2^attempt))`), and which errors are retried.
@Suite struct RetryPolicyTests {
    @Test func capsDoubleFromTheBaseUpToTheMaximum() {
        let policy = RetryPolicy(maxRetries: 10, baseDelayMs: 50, maxDelayMs: 2000)
        let caps = (1...8).map { policy.delayCap(beforeRetry: $0) }
        #expect(caps == [50, 100, 200, 400, 800, 1600, 2000, 2000])
        #expect(policy.delayCap(beforeRetry: 200) == 2000)
    }

    @Test func fullJitterAsksTheRandomSourceForZeroToTheCap() {
        let policy = RetryPolicy(maxRetries: 3)
        var asked = [Int]()
        let delays = (1...3).map { retry in
            policy.delay(beforeRetry: retry) { upper in
                asked.append(upper)
                return upper / 2
            }
        }
        #expect(asked == [50, 100, 200])
        #expect(delays == [25, 50, 100])
        // A misbehaving source is clamped into 0...cap.
        #expect(policy.delay(beforeRetry: 1) { _ in 1_000_000 } == 50)
        #expect(policy.delay(beforeRetry: 1) { _ in -5 } == 0)
    }

    /// (error, retryable): retry 5xx, 429, SlowDown, timeouts and connection errors only (docs/object-store.md).
    static let classification: [(ObjectStoreError, Bool)] = [
        (.status(500, code: "InternalError"), true),
        (.status(503, code: "SlowDown"), true),
        (.status(502, code: nil), true),
        (.status(429, code: nil), true),
        (.status(400, code: "SlowDown"), true),
        (.status(200, code: "InternalError"), true),
        (.status(200, code: "NoSuchKey"), false),
        (.status(403, code: "SignatureDoesNotMatch"), false),
        (.status(404, code: "NoSuchKey"), false),
        (.status(400, code: "RequestTimeout"), false),
        (.status(412, code: "PreconditionFailed"), false),
        (.timeout("x"), true),
        (.connection("x"), true),
        (.tls("x"), false),
        (.malformedResponse("x"), false),
        (.signing("x"), false),
    ]

    @Test(arguments: 0..<classification.count)
    func retryableErrors(_ index: Int) {
        let (error, retryable) = Self.classification[index]
        #expect(error.isRetryable == retryable, "\(error)")
        let policy = RetryPolicy(maxRetries: 2)
        #expect(policy.shouldRetry(after: error, retriesSoFar: 0) == retryable)
        #expect(!policy.shouldRetry(after: error, retriesSoFar: 2))
    }
}
