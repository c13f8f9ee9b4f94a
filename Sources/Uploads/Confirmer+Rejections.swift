import ObjectStore
import Records

extension Confirmer {
    /// The one place a confirmation refuses an uploaded object for what its bytes are (the content
    /// check's mismatch, a declared digest's): deletes the object under `key`, counts the refusal, reports
    /// it as the rejected upload it is (`LifecycleEvent.contentRefused` or `.checksumRefused`, which the
    /// log and the outbound events take), and returns the error to throw. Nothing is recorded; the caller
    /// gives its claim back, as after any failed step, so a later confirmation finds no object.
    func reject(
        _ rejection: UploadRejection, key: String, intent: UploadIntent, size: Int64, in storage: any ObjectStorage
    ) throws(UploadError) -> UploadError {
        try UploadError.calling { () throws(ObjectStoreError) in try storage.delete(key: key) }
        switch rejection {
        case .content(let mismatch):
            contentRefusals.wrappingAdd(1, ordering: .relaxed)
            events(.contentRefused(type: intent.type, reason: mismatch.code, size: size, owner: intent.ownerId))
        case .checksum(let mismatch):
            checksumRefusals.wrappingAdd(1, ordering: .relaxed)
            events(
                .checksumRefused(
                    type: intent.type, algorithm: mismatch.digest.algorithm, declared: mismatch.declared,
                    actual: mismatch.actual, size: size, owner: intent.ownerId))
        }
        return rejection.error
    }
}
