import HTTPClient
import Testing

@testable import ObjectStore

/// Which of the S3 client's errors are retried (docs/object-store.md).
@Suite struct ObjectStoreErrorTests {
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
        #expect(policy.shouldRetry(retryable: error.isRetryable, retriesSoFar: 0) == retryable)
        #expect(!policy.shouldRetry(retryable: error.isRetryable, retriesSoFar: 2))
    }
}
