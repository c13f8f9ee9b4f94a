import Crypto
import System
import Uploads

/// The outside world as the application sees it: the clock and the source of random ids. Tests pass
/// fixed ones; `presignd` passes the real ones.
public struct AppEnvironment: Sendable {
    /// Wall-clock milliseconds since the Unix epoch.
    public var nowMillis: @Sendable () -> Int64
    /// A new random lower-case UUID.
    public var newUUID: @Sendable () -> String
    /// The process environment, read by the credential providers (`AWS_*`, `HOME`); empty in tests
    /// that build the application in process.
    public var variables: [String: String]

    /// An environment from the given sources.
    public init(
        nowMillis: @escaping @Sendable () -> Int64, newUUID: @escaping @Sendable () -> String,
        variables: [String: String] = [:]
    ) {
        self.nowMillis = nowMillis
        self.newUUID = newUUID
        self.variables = variables
    }

    /// The clock and ids the upload lifecycle uses.
    public var uploads: UploadEnvironment { UploadEnvironment(nowMillis: nowMillis, newUUID: newUUID) }
}
