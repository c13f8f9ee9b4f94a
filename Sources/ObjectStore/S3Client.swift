import HTTPClient
import SigV4
import System

/// The server's own signed calls to S3-compatible storage: HEAD, COPY, DELETE, ranged GET, PUT.
///
/// Blocking: call it from worker threads, never from an event loop. Every operation is
/// idempotent, so each is retried (`maxRetries`, jittered exponential backoff) on 5xx, 429,
/// `SlowDown`, timeouts and broken connections, and re-signed for each attempt.
public final class S3Client: Sendable {
    /// Endpoint, bucket and limits.
    public let options: ObjectStoreOptions
    /// When to retry.
    public let retryPolicy: RetryPolicy
    /// The transport (its pool is shared by every call).
    public let http: HTTPClient
    /// Signs each attempt with the credentials current then; built for `options.endpoint`.
    public let signer: RotatingPresigner
    /// The clock for `X-Amz-Date`, in epoch seconds.
    let now: @Sendable () -> Int64
    /// A random integer in `0...upperBound`, for the backoff jitter.
    let random: @Sendable (_ upperBound: Int) -> Int
    /// Waits that many milliseconds before a retry.
    let sleep: @Sendable (_ milliseconds: Int) -> Void

    /// A client for `options.bucket` at `options.endpoint`.
    ///
    /// `signer` must be built for the internal endpoint `options.endpoint` (not the public one
    /// presigned URLs are made for): the `Host` it signs is the host connected to. `random` and
    /// `sleep` drive the backoff; tests pass deterministic ones.
    public convenience init(
        options: ObjectStoreOptions, signer: Presigner, now: @escaping @Sendable () -> Int64,
        random: @escaping @Sendable (_ upperBound: Int) -> Int = { Int.random(in: 0...max(0, $0)) },
        sleep: @escaping @Sendable (_ milliseconds: Int) -> Void = PThread.sleep(milliseconds:)
    ) {
        self.init(options: options, signer: RotatingPresigner(signer), now: now, random: random, sleep: sleep)
    }

    /// A client signing with whatever credentials `signer` holds at each attempt (temporary
    /// credentials rotate under it); otherwise as `init(options:signer:now:random:sleep:)`.
    public init(
        options: ObjectStoreOptions, signer: RotatingPresigner, now: @escaping @Sendable () -> Int64,
        random: @escaping @Sendable (_ upperBound: Int) -> Int = { Int.random(in: 0...max(0, $0)) },
        sleep: @escaping @Sendable (_ milliseconds: Int) -> Void = PThread.sleep(milliseconds:)
    ) {
        precondition(
            signer.current.endpoint == options.endpoint, "the signer must be built for the endpoint the client calls")
        self.options = options
        self.retryPolicy = RetryPolicy(maxRetries: options.maxRetries)
        self.http = HTTPClient(options: options.httpClientOptions)
        self.signer = signer
        self.now = now
        self.random = random
        self.sleep = sleep
    }

    /// Signs and sends one request, retrying per `retryPolicy`; `handle` turns a response into a
    /// result or an error (its errors are retried too when retryable, e.g. a 503). `retryable` may
    /// veto a retry the policy allows (a call that is not idempotent). `package`: the test support's
    /// own calls (PutObject) use it without `@testable`, so a release build compiles them.
    package func perform<Result>(
        _ method: String, key: String, query: [(name: String, value: String)] = [],
        headers: [(name: String, value: String)] = [], body: [UInt8] = [], payloadHash: String? = nil,
        retryable: (ObjectStoreError) -> Bool = { _ in true },
        handle: (HTTPResponse) throws(ObjectStoreError) -> Result
    ) throws(ObjectStoreError) -> Result {
        try retrying(retryable: retryable) { () throws(ObjectStoreError) -> Result in
            let signed: SignedRequest
            do throws(SigV4Error) {
                signed = try signer.signHeaders(
                    method: method, bucket: options.bucket, key: key, query: query, headers: headers,
                    payloadHash: payloadHash, now: now())
            } catch {
                throw ObjectStoreError.signing(String(describing: error))
            }
            let request = HTTPRequest(method: method, target: signed.target, headers: signed.headers, body: body)
            return try handle(send(request, to: address(of: signed)))
        }
    }

    /// Runs `attempt` until it returns, or until it fails with an error `retryPolicy` (and `retryable`)
    /// does not retry, sleeping the policy's delay between attempts: the one retry loop of the client's
    /// calls (`perform`, `performService`).
    func retrying<Result>(
        retryable: (ObjectStoreError) -> Bool = { _ in true }, _ attempt: () throws(ObjectStoreError) -> Result
    ) throws(ObjectStoreError) -> Result {
        var retries = 0
        while true {
            do throws(ObjectStoreError) {
                return try attempt()
            } catch {
                guard retryPolicy.shouldRetry(retryable: error.isRetryable, retriesSoFar: retries), retryable(error)
                else {
                    throw error
                }
                retries += 1
                sleep(retryPolicy.delay(beforeRetry: retries, random: random))
            }
        }
    }

    /// Sends `request` to `address`, its transport failure as an `ObjectStoreError`.
    func send(_ request: HTTPRequest, to address: ServerAddress) throws(ObjectStoreError) -> HTTPResponse {
        do throws(HTTPClientError) {
            return try http.send(request, to: address)
        } catch {
            throw ObjectStoreError(error)
        }
    }

    /// Where to connect for `signed`: the host it signed (`bucket.host` when virtual-hosted) on
    /// the endpoint's scheme and port.
    func address(of signed: SignedRequest) -> ServerAddress {
        let endpoint = options.endpoint
        var host = signed.headers.first { $0.name == "Host" }?.value ?? endpoint.host
        if let port = endpoint.port, host.hasSuffix(":\(port)") { host.removeLast(":\(port)".count) }
        return ServerAddress(
            usesTLS: endpoint.scheme == "https", host: host, port: endpoint.port ?? endpoint.defaultPort)
    }
}
