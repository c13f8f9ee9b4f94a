extension S3Client {
    /// A signed HEAD of the bucket with the current credentials, as a typed outcome: the bucket is
    /// usable, missing, the credentials are refused (and which way), another refusal, or storage
    /// cannot be reached. Never throws; blocking (retries as every call, then the outcome).
    ///
    /// A HEAD answer has no body, so after a refusal the bucket is asked once more with a GET of at
    /// most one key (`probeBucket`), whose error body names S3's code.
    public func checkBucket() -> BucketCheck {
        do {
            let probe = try probeBucket()
            return BucketCheck(status: probe.status, code: probe.errorCode)
        } catch {
            return .unreachable(error)
        }
    }
}
