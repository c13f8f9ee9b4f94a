import HTTPClient
import System

/// The outside world as the providers see it: the process environment, files, the clock, a random
/// source, sleeping and the HTTP transport. `App` passes the real ones; tests pass their own.
public struct CredentialsContext: Sendable {
    /// The process environment (`AWS_*` variables, `HOME`), read once by the caller.
    public var environment: [String: String]
    /// Reads a whole file, failing with `CredentialsError.file` (whose reason never holds the contents).
    public var readFile: @Sendable (_ path: String) throws(CredentialsError) -> [UInt8]
    /// Wall-clock seconds since the Unix epoch.
    public var now: @Sendable () -> Int64
    /// A random integer in `0...upperBound` (retry and refresh jitter, session names).
    public var random: @Sendable (_ upperBound: Int) -> Int
    /// Blocks the calling thread for that many milliseconds (between retries).
    public var sleep: @Sendable (_ milliseconds: Int) -> Void
    /// Makes the transport of a remote provider from its limits.
    public var makeTransport: @Sendable (_ options: HTTPClientOptions) -> any CredentialsTransport

    /// A context from its parts; files, sleeping and the transport default to the real ones.
    public init(
        environment: [String: String],
        readFile: @escaping @Sendable (_ path: String) throws(CredentialsError) -> [UInt8] = CredentialsFileReader.read(
            path:),
        now: @escaping @Sendable () -> Int64,
        random: @escaping @Sendable (_ upperBound: Int) -> Int,
        sleep: @escaping @Sendable (_ milliseconds: Int) -> Void = PThread.sleep(milliseconds:),
        makeTransport: @escaping @Sendable (_ options: HTTPClientOptions) -> any CredentialsTransport = {
            HTTPClient(options: $0)
        }
    ) {
        self.environment = environment
        self.readFile = readFile
        self.now = now
        self.random = random
        self.sleep = sleep
        self.makeTransport = makeTransport
    }

    /// The variable `name`, nil when unset or empty (as the AWS tools treat empty values).
    func variable(_ name: String) -> String? {
        guard let value = environment[name], !value.isEmpty else { return nil }
        return value
    }

    /// The file at `path`, a failure named after `provider`.
    func read(_ path: String, for provider: String) throws(CredentialsError) -> [UInt8] {
        do {
            return try readFile(path)
        } catch {
            if case .file(_, let path, let reason) = error {
                throw .file(provider: provider, path: path, reason: reason)
            }
            throw error
        }
    }

    /// A random integer in `0...upperBound`, clamped (the source is the caller's).
    func randomValue(upTo upperBound: Int) -> Int {
        min(max(random(upperBound), 0), upperBound)
    }
}
