import HTTPClient

/// One remote provider's way of asking: its transport, its retry policy and its name on errors.
struct RemoteFetcher: Sendable {
    /// The provider's name.
    let provider: String
    /// Where requests go.
    let transport: any CredentialsTransport
    /// When to try again.
    let retryPolicy: RetryPolicy
    /// Randomness and sleeping for the backoff.
    let context: CredentialsContext

    /// A fetcher for `provider` with `options`, its transport made by `context`.
    init(provider: String, options: RemoteProviderOptions, context: CredentialsContext) {
        self.provider = provider
        self.transport = context.makeTransport(options.httpClientOptions)
        self.retryPolicy = options.retryPolicy
        self.context = context
    }

    /// Runs `attempt` until it succeeds, fails with an error that is not retryable, or the retries
    /// are spent; waits the policy's jittered backoff between attempts.
    func withRetries<Value>(_ attempt: () throws(CredentialsError) -> Value) throws(CredentialsError) -> Value {
        var retries = 0
        while true {
            do {
                return try attempt()
            } catch {
                guard retryPolicy.shouldRetry(retryable: error.isRetryable, retriesSoFar: retries) else { throw error }
                retries += 1
                context.sleep(retryPolicy.delay(beforeRetry: retries, random: { context.randomValue(upTo: $0) }))
            }
        }
    }

    /// One exchange; transport failures become `.transport`.
    func send(_ request: HTTPRequest, to address: ServerAddress) throws(CredentialsError) -> HTTPResponse {
        do {
            return try transport.send(request, to: address)
        } catch {
            throw .transport(provider: provider, error)
        }
    }
}
