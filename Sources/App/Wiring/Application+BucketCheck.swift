import Config
import Logging
import ObjectStore

extension Application {
    /// Step 2c: the start-up check of the bucket (`s3.startupCheck`): unless `off`, a signed HEAD of
    /// `s3.bucket` with the credentials the start resolved (`S3Client.checkBucket()`), its outcome kept
    /// in `status` for `/metrics`. An outcome other than ok is an error line naming the cause
    /// (`BucketCheck`'s name and description, the bucket, the endpoint's host); with `fail`, a missing
    /// bucket or refused credentials stop the start (exit 1), while an unreachable store or another
    /// refusal only leaves that line, since storage may come up later. `/readyz` fails by itself
    /// until the bucket answers: each probe asks storage again.
    static func checkBucketAtStart(_ s3: S3Config, storage: S3Client, status: BucketStatus, log: LogSink)
        throws(AppError)
    {
        guard s3.startupCheck != .off else { return }
        let outcome = storage.checkBucket()
        status.note(outcome)
        let host = storage.options.endpoint.host
        guard !outcome.isOK else {
            log.info("storage bucket checked", ["outcome": outcome.name, "bucket": s3.bucket, "endpointHost": host])
            return
        }
        let stops: Bool
        switch outcome {
        case .noSuchBucket, .credentialsRefused: stops = s3.startupCheck == .fail
        case .ok, .refused, .unreachable: stops = false
        }
        log.error(
            "storage bucket check failed",
            [
                "outcome": outcome.name, "cause": outcome.description, "bucket": s3.bucket, "endpointHost": host,
                "startupCheck": s3.startupCheck.rawValue,
                "then": stops ? "exit" : "serving; /readyz fails until the bucket answers",
            ])
        if stops {
            throw .startup(
                "s3",
                "the bucket check failed (s3.startupCheck is fail): \(outcome.description), bucket \(s3.bucket) at \(host)"
            )
        }
    }
}
