import ObjectStore

/// The storage-side checks of `/readyz` from one probe of the bucket: `storage` (does storage take our
/// requests, and if not, S3's reason or the transport failure) and `clock` (does its clock agree with
/// ours). Pure: the probe's outcome and the time come in.
enum StorageReadiness {
    /// `storage` and `clock`, in that order. Without an answer nothing is known of storage's clock, so
    /// `clock` is `unknown` rather than missing.
    static func checks(
        probe: Result<S3Client.BucketProbe, ObjectStoreError>, nowMillis: Int64, maxSkewSeconds: Int
    ) -> [ReadinessCheck] {
        let answer: S3Client.BucketProbe
        switch probe {
        case .failure(let error): return [.failed("storage", error.description), .unknown("clock")]
        case .success(let p): answer = p
        }
        let storage: ReadinessCheck =
            answer.status == 200 ? .ok("storage") : .failed("storage", refusal(answer.status, code: answer.errorCode))
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

    /// `Code (HTTP status): what to check`, or `HTTP status` when storage named no code.
    static func refusal(_ status: Int, code: String?) -> String {
        let text = ObjectStoreError.status(status, code: code).description
        guard let code, let hint = hints[code] else { return text }
        return text + ": " + hint
    }

    /// What an operator should look at for the codes a misconfiguration gives.
    static let hints: [String: String] = [
        "SignatureDoesNotMatch": "s3.secretAccessKey is not the secret of s3.accessKeyId",
        "InvalidAccessKeyId": "storage does not know s3.accessKeyId",
        "NoSuchBucket": "the bucket s3.bucket does not exist",
        "AccessDenied": "the credentials may not list s3.bucket",
        "RequestTimeTooSkewed": "this server's clock is too far from storage's",
        "InvalidToken": "s3.sessionToken is not valid",
        "ExpiredToken": "s3.sessionToken has expired",
        "PermanentRedirect": "s3.bucket is in another region or behind another endpoint (s3.region, s3.endpoint)",
        "AuthorizationHeaderMalformed": "s3.region is not the bucket's region",
    ]
}
