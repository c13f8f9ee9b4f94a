import Foundation

/// How often and how long to wait between attempts: exponential back-off with jitter.
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts per part (or per call), the first included.
    public var maxAttempts: Int
    /// The delay before the second attempt, in seconds; doubled for each further one.
    public var baseDelay: Double
    /// No delay is longer than this.
    public var maxDelay: Double

    public init(maxAttempts: Int = 5, baseDelay: Double = 0.25, maxDelay: Double = 20) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// The delay after failed attempt `attempt` (1 = the first): `base × 2^(attempt-1)`, capped, of which
    /// the upper half is random ("equal jitter": never zero, so retries of parts that failed together
    /// spread out). `unit` is a random number in 0..<1.
    public func delay(afterAttempt attempt: Int, unit: Double) -> Double {
        let exponent = Double(max(0, min(attempt - 1, 30)))
        let ceiling = min(maxDelay, baseDelay * pow(2, exponent))
        return ceiling / 2 + ceiling / 2 * min(max(unit, 0), 1)
    }
}

/// What to do after a failure of one part (or one call to a multipart route).
public enum FailureAction: Sendable, Equatable {
    /// Try again after a delay, with the same URL.
    case retry
    /// Try again after a delay with a freshly signed URL (the URL expired, 403).
    case resign
    /// The upload is gone on the server: start again with a new key and upload id.
    case restart
    /// Give up: the error is final.
    case fail
}

/// Sorting errors into actions: 5xx, 429, request time-outs and network errors are retried; a 403 from
/// storage gets a new URL, and so does its `BadDigest` (the part is read from the file again); `NoSuchUpload` (from storage, or the server's 404 with a restart code)
/// restarts the upload; everything else fails.
public struct FailureClassifier: Sendable {
    /// Server codes (404) that mean "start again with a new key and upload id".
    public var restartCodes: Set<String>

    public static let defaultRestartCodes: Set<String> = [
        "NoSuchUpload", "NO_SUCH_UPLOAD", "UPLOAD_NOT_FOUND", "UPLOAD_GONE", "MULTIPART_UPLOAD_NOT_FOUND",
        "RESTART_UPLOAD",
    ]

    public init(restartCodes: Set<String> = FailureClassifier.defaultRestartCodes) {
        self.restartCodes = restartCodes
    }

    public func action(for error: PresignClientError) -> FailureAction {
        switch error {
        case .network: return .retry
        case .cancelled, .file, .invalidResponse: return .fail
        case .uploadGone: return .restart
        case .storage(let status, let code, _):
            if code == "NoSuchUpload" { return .restart }
            // Bytes other than the MD5 the URL signed: read the part from the file again, sign it again.
            if code == "BadDigest" { return .resign }
            if status >= 500 || status == 429 || code == "RequestTimeout" || code == "SlowDown" { return .retry }
            if status == 403 { return .resign }
            return .fail
        case .server(let status, let code, let message, _):
            if status == 404, let c = code, restartCodes.contains(c) { return .restart }
            if status == 404, let m = message, restartCodes.contains(where: { m.contains($0) }) { return .restart }
            if status >= 500 || status == 429 { return .retry }
            return .fail
        }
    }
}
