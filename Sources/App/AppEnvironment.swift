import Crypto
import HTTPServer

/// The outside world as the application sees it: the clock and the source of random ids. Tests pass
/// fixed ones; `presignd` passes the real ones.
public struct AppEnvironment: Sendable {
    /// Wall-clock milliseconds since the Unix epoch.
    public var nowMillis: @Sendable () -> Int64
    /// A new random lower-case UUID.
    public var newUUID: @Sendable () -> String

    /// An environment from the given sources.
    public init(nowMillis: @escaping @Sendable () -> Int64, newUUID: @escaping @Sendable () -> String) {
        self.nowMillis = nowMillis
        self.newUUID = newUUID
    }
}

/// Formatting of times for API bodies.
enum Timestamp {
    /// `2026-11-29T08:59:31Z` for epoch milliseconds (whole seconds).
    static func iso8601(millis: Int64) -> String {
        let s = millis >= 0 ? millis / 1000 : (millis - 999) / 1000
        return HTTPDate.iso8601Second(HTTPDate.civil(fromEpochSeconds: s)) + "Z"
    }

    /// `2026-11-29T08:59:31.123Z` for epoch milliseconds.
    static func iso8601Millis(_ millis: Int64) -> String {
        let s = millis >= 0 ? millis / 1000 : (millis - 999) / 1000
        let ms = Int(millis - s * 1000)
        let frac = ms < 10 ? "00\(ms)" : ms < 100 ? "0\(ms)" : "\(ms)"
        return HTTPDate.iso8601Second(HTTPDate.civil(fromEpochSeconds: s)) + "." + frac + "Z"
    }
}
