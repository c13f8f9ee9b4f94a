/// Whether this server's clock agrees with the storage server's, for `/readyz`. Pure.
///
/// A presigned URL carries the signer's time (`X-Amz-Date`) and a lifetime: storage refuses it before
/// that time (beyond a small allowance) and after it plus the lifetime, by the storage's own clock. A
/// server whose clock is off by minutes issues URLs that fail early or not at all, which no request
/// error shows; readiness does.
enum ClockSkew {
    /// Seconds this server's clock is ahead of the storage server's (negative: behind).
    static func seconds(serverEpochSeconds: Int64, nowMillis: Int64) -> Int64 {
        let now = nowMillis >= 0 ? nowMillis / 1000 : (nowMillis - 999) / 1000
        return now - serverEpochSeconds
    }

    /// nil when the clocks agree within `maxSeconds`, else the problem as `/readyz` shows it.
    static func problem(serverEpochSeconds: Int64, nowMillis: Int64, maxSeconds: Int) -> String? {
        let skew = seconds(serverEpochSeconds: serverEpochSeconds, nowMillis: nowMillis)
        guard abs(skew) > Int64(maxSeconds) else { return nil }
        return "this server's clock is \(abs(skew)) s \(skew > 0 ? "ahead of" : "behind") the storage server's "
            + "(allowed: \(maxSeconds) s)"
    }
}
