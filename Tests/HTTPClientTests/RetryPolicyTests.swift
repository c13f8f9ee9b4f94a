import Testing

@testable import HTTPClient

/// Backoff caps and jitter ("Exponential Backoff And Jitter", AWS Architecture Blog, 2015: full
/// jitter is `random(0, min(cap, base * 2^attempt))`), and the retry count.
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

    @Test(arguments: [(true, 0, true), (true, 1, true), (true, 2, false), (false, 0, false)])
    func retriesOnlyWhatMayPassWhileRetriesAreLeft(retryable: Bool, retriesSoFar: Int, expected: Bool) {
        let policy = RetryPolicy(maxRetries: 2)
        #expect(policy.shouldRetry(retryable: retryable, retriesSoFar: retriesSoFar) == expected)
    }

    /// (error, retryable): only timeouts and broken connections may pass on another try.
    static let classification: [(HTTPClientError, Bool)] = [
        (.timeout("x"), true), (.connection("x"), true), (.tls("x"), false), (.malformedResponse("x"), false),
    ]

    @Test(arguments: 0..<classification.count)
    func retryableTransportErrors(_ index: Int) {
        let (error, retryable) = Self.classification[index]
        #expect(error.isRetryable == retryable, "\(error)")
    }
}
