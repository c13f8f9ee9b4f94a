import ObjectStore

/// The storage-side checks of `/readyz` from one probe of the bucket: `storage` (does storage take our
/// requests, and if not, why: `BucketCheck`'s description, the same text as the start-up check's log
/// line) and `clock` (does its clock agree with ours). Pure: the probe's outcome and the time come in.
enum StorageReadiness {
    /// `storage` and `clock`, in that order. Without an answer nothing is known of storage's clock, so
    /// `clock` is `unknown` rather than missing.
    static func checks(
        probe: Result<S3Client.BucketProbe, ObjectStoreError>, nowMillis: Int64, maxSkewSeconds: Int
    ) -> [ReadinessCheck] {
        let outcome = bucketCheck(probe)
        let storage: ReadinessCheck = outcome.isOK ? .ok("storage") : .failed("storage", outcome.description)
        guard case .success(let answer) = probe else { return [storage, .unknown("clock")] }
        guard let serverSeconds = answer.serverEpochSeconds else {
            return [storage, .unknown("clock", "storage sent no Date header")]
        }
        if let skew = ClockSkew.problem(
            serverEpochSeconds: serverSeconds, nowMillis: nowMillis, maxSeconds: maxSkewSeconds)
        {
            return [storage, .failed("clock", skew)]
        }
        return [storage, .ok("clock")]
    }

    /// The typed outcome of a probe (as `S3Client.checkBucket()` makes it).
    static func bucketCheck(_ probe: Result<S3Client.BucketProbe, ObjectStoreError>) -> BucketCheck {
        switch probe {
        case .success(let answer): return BucketCheck(status: answer.status, code: answer.errorCode)
        case .failure(let error): return .unreachable(error)
        }
    }
}
