import ObjectStore
import Records

extension Confirmer {
    /// A confirmation's refusal of an uploaded object for what its bytes are (the content check's
    /// mismatch, a declared digest's): settled by `refuse` (its `upload.rejected` event, then the object
    /// under `key` deleted), then counted and reported in the log (`LifecycleEvent.contentRefused` or
    /// `.checksumRefused`); returns the error to throw. Nothing is recorded; the caller gives its claim
    /// back, as after any failed step, so a later confirmation finds no object.
    func reject(
        _ rejection: UploadRejection, key: String, intent: UploadIntent, info: ObjectInfo,
        in storage: any ObjectStorage
    ) throws(UploadError) -> UploadError {
        let size = info.size
        let error = try refuse(
            intent, key: key, info: info, in: storage, reason: rejection.reason, message: rejection.message,
            rejection.error)
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
        return error
    }
}
